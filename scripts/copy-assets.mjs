// tsc emits only .js: copy the text files that sit beside the code (prompts, tool descriptions,
// shipped scripts) into dist/ so compiled code finds them at the same relative path. Template
// trees (the demo's sample repository) are copied whole, .ts files included.
import { cpSync, existsSync, statSync } from 'node:fs';

// Browser scripts (not compiled: they run in the page as they are) live in `assets/` folders.
const ASSET = /\.(md|txt|json|html|css|sh)$|[\\/]assets[\\/][^\\/]+\.js$/;
const TEMPLATES = ['coordinator/demo/sample-repo'];

for (const dir of ['coordinator', 'workers', 'roles', 'shared', 'bench']) {
  if (!existsSync(dir)) continue;
  cpSync(dir, `dist/${dir}`, {
    recursive: true,
    filter: (src) => !TEMPLATES.includes(src) && (statSync(src).isDirectory() || ASSET.test(src)),
  });
}
for (const dir of TEMPLATES) {
  if (existsSync(dir)) cpSync(dir, `dist/${dir}`, { recursive: true });
}
