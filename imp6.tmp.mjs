await import('./dist/roles/builtinRoles.js');
await import('./dist/roles/customRoles.js');
await import('./dist/shared/policy/plugins/pluginSet.js');
await import('./dist/shared/policy/settings/loadSettings.js');
await import('./dist/shared/context/config/trustedSettings.js');
const t = process.cpuUsage();
await import('./dist/shared/tools/catalog.js');
const d = process.cpuUsage(t);
console.log(Math.round((d.user + d.system) / 1000));
