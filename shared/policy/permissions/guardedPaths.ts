/**
 * Paths an agent never writes without an allow rule that names them: repository metadata, agent
 * and hook configuration, shell start-up files, credentials. Writing any of these can change what
 * runs next (a git hook, a shell rc, a Claude Code setting) or leak secrets. Checked on the path
 * relative to the workspace root, at any depth (a nested `.git` or `.env` counts), ignoring case.
 */
const GUARDED_FOLDERS = new Set(['.git', '.claude', '.husky']);

const GUARDED_FILES = new Set([
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.bash_logout',
  '.profile',
  '.zshrc',
  '.zshenv',
  '.zprofile',
  '.zlogin',
  '.zlogout',
  '.kshrc',
  '.cshrc',
  '.tcshrc',
  '.config/fish/config.fish',
  '.gitconfig',
  '.npmrc',
  '.mcp.json',
]);

/** Why writing `relativePath` (forward slashes, relative to the workspace root) is guarded, or undefined. */
export function guardedReason(relativePath: string): string | undefined {
  const segments = relativePath
    .toLowerCase()
    .split('/')
    .filter((segment) => segment !== '' && segment !== '.');
  const folder = segments.find((segment) => GUARDED_FOLDERS.has(segment));
  if (folder) return `${relativePath} is inside ${folder}/, which is guarded`;
  const name = segments.at(-1) ?? '';
  const tail = segments.slice(-3).join('/');
  if (GUARDED_FILES.has(name) || GUARDED_FILES.has(tail)) return `${relativePath} is a guarded configuration file`;
  if (name.startsWith('.env')) return `${relativePath} may hold secrets (.env files are guarded)`;
  return undefined;
}
