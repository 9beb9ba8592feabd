import { lstatSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { StatFingerprints } from '../files/statFingerprints.js';
import { ORCA_STATE_ENV } from '../runtime/agentEnv.js';
import { SECRET_ENV } from '../runtime/secretRedaction.js';
import { namedCommonDir, namedGitDir } from './gitFolders.js';

/**
 * What every git process orca runs is given, so that nothing an agent could have written makes
 * git run a program: git reads configuration from files agent code can reach (the repository's
 * `.git/config` and what it includes, `~/.gitconfig`, `/etc/gitconfig`), and several keys there
 * name programs git starts on its own (`core.fsmonitor` on every status, `filter.*` on checkout
 * and add, `diff.external` and textconv on diffs, `merge.*.driver` on merges, hooks on
 * checkouts and commits). One place, used by every git call of orca's (`gitAt`, `runGit`, the
 * batch readers):
 * - no system configuration, and a global one orca controls: the user's `~/.gitconfig` is read
 *   once per process and only keys that run nothing are kept (RUNS_NOTHING), given on the
 *   command line's scope; credential helpers and `core.sshCommand` are kept for the remote
 *   operations the user asked for (push, fetch, clone, ls-remote) only;
 * - on every call, the keys that name programs are overridden on the command line, which wins
 *   over every file: `core.fsmonitor`, `core.hooksPath`, `core.sshCommand`, `core.askPass`, and
 *   each filter and merge driver the repository's configuration names (read from its files,
 *   includes followed, before every call: a driver planted a moment ago is named too);
 * - diffs never run an external diff or textconv (`--no-ext-diff --no-textconv`);
 * - the environment loses orca's secrets (the API key) and what names its state (its Redis), so
 *   even a program git was made to run would not hold them.
 */

/** Keys of the user's global configuration a git call of orca's may keep: none of them runs a program. */
const RUNS_NOTHING = [
  /^user\.(name|email)$/,
  /^safe\.directory$/,
  /^core\.(autocrlf|eol|safecrlf|longpaths|quotepath|ignorecase|precomposeunicode|protectntfs|protecthfs)$/,
  /^init\.defaultbranch$/,
  /^url\..+\.(insteadof|pushinsteadof)$/,
  /^https?\.(sslcainfo|sslcapath|sslverify|proxy|version|postbuffer|lowspeedlimit|lowspeedtime)$/,
  /^https?\..+\.(sslcainfo|sslcapath|sslverify|proxy|extraheader)$/,
];

/** Kept besides for remote operations only: how the user reaches a remote (helpers the user configured). */
const REMOTE_ONLY = [/^credential\..*$/, /^core\.sshcommand$/];

/** Subcommands that talk to a remote. */
const REMOTE_COMMANDS = new Set(['push', 'fetch', 'clone', 'ls-remote', 'pull']);

/** Subcommands whose output is a diff made with porcelain defaults (external diff, textconv). */
const DIFF_COMMANDS = new Set(['diff', 'show', 'log', 'whatchanged', 'format-patch', 'blame']);

/** The merge a neutralised merge driver does: git's own three-way merge of the file. */
const BUILTIN_MERGE = 'git merge-file --marker-size=%L %A %O %B';

let userConfig: { name: string; value: string }[] | undefined;

/** Whether these git arguments talk to a remote (push, fetch, clone, ls-remote, pull): they may wait on a network. */
export function talksToRemote(args: readonly string[]): boolean {
  const sub = subcommand(args);
  return sub !== undefined && REMOTE_COMMANDS.has(sub);
}

/** The arguments and environment for one git process of orca's in `cwd`. */
export function gitInvocation(cwd: string, args: readonly string[], env: NodeJS.ProcessEnv): { args: string[]; env: NodeJS.ProcessEnv } {
  const sub = subcommand(args);
  const remote = talksToRemote(args);
  const pairs = [...keptUserConfig(remote), ...fixedOverrides(remote), ...driverOverrides(cwd)];
  return { args: [...pairs.flatMap(({ name, value }) => ['-c', `${name}=${value}`]), ...withDiffFlags(args, sub)], env: gitEnv(env) };
}

/** The environment: no system or global file, no secrets, nothing naming orca's own state (its Redis), no prompt. */
export function gitEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || SECRET_ENV.test(name) || ORCA_STATE_ENV.test(name) || name === 'GIT_EXTERNAL_DIFF') continue;
    out[name] = value;
  }
  return { ...out, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_TERMINAL_PROMPT: '0' };
}

function fixedOverrides(remote: boolean): { name: string; value: string }[] {
  const out = [
    { name: 'core.fsmonitor', value: 'false' },
    { name: 'core.hooksPath', value: '/dev/null' },
    { name: 'core.askPass', value: '' },
    { name: 'protocol.ext.allow', value: 'never' },
  ];
  // The user's own ssh command (kept among their remote settings) wins for remote commands; otherwise plain ssh.
  if (!remote || !keptUserConfig(true).some((pair) => pair.name === 'core.sshcommand')) out.push({ name: 'core.sshCommand', value: 'ssh' });
  if (!remote) out.push({ name: 'credential.helper', value: '' });
  return out;
}

/** The user's global keys that run nothing (and, for a remote command, how they reach remotes). */
function keptUserConfig(remote: boolean): { name: string; value: string }[] {
  userConfig ??= readUserConfig();
  return userConfig.filter(
    ({ name }) => RUNS_NOTHING.some((key) => key.test(name)) || (remote && REMOTE_ONLY.some((key) => key.test(name))),
  );
}

/** `~/.gitconfig` (or `$XDG_CONFIG_HOME/git/config`) as name/value pairs, names lower-cased as git reports them. */
function readUserConfig(): { name: string; value: string }[] {
  const home = process.env.HOME ?? '';
  const xdg = process.env.XDG_CONFIG_HOME || path.join(home, '.config');
  const files = [path.join(xdg, 'git', 'config'), path.join(home, '.gitconfig')];
  return files.flatMap((file) => parseConfig(readText(file) ?? '', file).entries);
}

/** For each filter and merge driver the repository's configuration defines, an override that makes it run nothing. */
function driverOverrides(cwd: string): { name: string; value: string }[] {
  const drivers = repositoryDrivers(cwd);
  return [
    ...drivers.filters.flatMap((name) => [
      { name: `filter.${name}.clean`, value: '' },
      { name: `filter.${name}.smudge`, value: '' },
      { name: `filter.${name}.process`, value: '' },
      { name: `filter.${name}.required`, value: 'false' },
    ]),
    ...drivers.merges.map((name) => ({ name: `merge.${name}.driver`, value: BUILTIN_MERGE })),
  ];
}

/** The driver names in the configuration files of the repository at `cwd` (its common and worktree files, and their includes). */
export function repositoryDrivers(cwd: string): { filters: string[]; merges: string[] } {
  const filters = new Set<string>();
  const merges = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: string, depth: number) => {
    if (seen.has(file) || depth > 10) return;
    seen.add(file);
    const text = readText(file);
    if (text === undefined) return;
    const parsed = parsedConfig(text, file);
    for (const name of parsed.sections.filter) filters.add(name);
    for (const name of parsed.sections.merge) merges.add(name);
    for (const include of parsed.includes) visit(include, depth + 1);
  };
  for (const file of configFiles(cwd)) visit(file, 0);
  return { filters: [...filters], merges: [...merges] };
}

/** The repository's `config` and the worktree's `config.worktree`, found from `cwd` by the `.git` pointer. */
function configFiles(cwd: string): string[] {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const gitDir = gitDirAt(dir) ?? (isGitDir(dir) ? dir : undefined);
    if (gitDir) {
      const common = commonDirOf(gitDir);
      return [path.join(common, 'config'), path.join(gitDir, 'config.worktree')];
    }
    if (path.dirname(dir) === dir) return [];
  }
}

function gitDirAt(dir: string): string | undefined {
  const dotGit = path.join(dir, '.git');
  try {
    if (statSync(dotGit).isDirectory()) return dotGit;
  } catch {
    return undefined; // No .git here: look further up.
  }
  const named = namedGitDir(readText(dotGit) ?? '');
  return named === undefined ? undefined : path.resolve(dir, named);
}

/** A bare repository (or a git folder given as cwd): HEAD and objects/ in it. */
function isGitDir(dir: string): boolean {
  try {
    return statSync(path.join(dir, 'HEAD')).isFile() && statSync(path.join(dir, 'objects')).isDirectory();
  } catch {
    return false;
  }
}

function commonDirOf(gitDir: string): string {
  const named = namedCommonDir(readText(path.join(gitDir, 'commondir')) ?? '');
  return named === undefined ? gitDir : path.resolve(gitDir, named);
}

/**
 * The text of the files read before every git call (the `.git` pointer, `commondir`, the
 * configuration and what it includes), kept while each is unchanged by its stat, settled
 * (statFingerprints.ts: its ctime, which every write sets and no program can set back): a job
 * makes dozens of git calls, and reading them all again took 4–6 % of a worker's and the
 * coordinator's time (a profile of the efficiency benchmark). A link is read each time: its own
 * stat does not change with what it leads to.
 */
const settledTexts = new StatFingerprints();

function readText(file: string): string | undefined {
  const readStartedNs = BigInt(Date.now()) * 1_000_000n;
  try {
    const stat = lstatSync(file, { bigint: true, throwIfNoEntry: false });
    if (stat === undefined) return undefined;
    if (!stat.isFile()) return readFileSync(file, 'utf8');
    return settledTexts.fingerprint(file, stat, () => readFileSync(file, 'utf8'), readStartedNs);
  } catch {
    return undefined; // A configuration file that is not there configures nothing.
  }
}

/**
 * Each configuration file's parse, kept while its text is the same (read by readText: the same
 * string while the file is unchanged) and so is HOME (an include's `~/`).
 */
const parsedConfigs = new Map<string, { text: string; home: string | undefined; parsed: ReturnType<typeof parseConfig> }>();

function parsedConfig(text: string, file: string): ReturnType<typeof parseConfig> {
  const home = process.env.HOME;
  const kept = parsedConfigs.get(file);
  if (kept?.text === text && kept.home === home) return kept.parsed;
  const parsed = parseConfig(text, file);
  parsedConfigs.set(file, { text, home, parsed });
  return parsed;
}

/**
 * Git's configuration syntax, as much as naming drivers and includes needs: sections
 * (`[filter "lfs"]`, the old `[filter.lfs]`), keys with values, `include.path` and
 * `includeIf.*.path` (followed whatever their condition: a driver named under any condition is
 * neutralised).
 */
function parseConfig(text: string, file: string) {
  const sections = { filter: new Set<string>(), merge: new Set<string>() };
  const entries: { name: string; value: string }[] = [];
  const includes: string[] = [];
  let section = '';
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/^\s+/, '');
    const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/.exec(line);
    if (header) {
      const [kind, ...rest] = header[1]!.split('.');
      const sub = header[2] ?? (rest.length > 0 ? rest.join('.') : undefined);
      section = `${kind!.toLowerCase()}${sub === undefined ? '' : `.${sub}`}`;
      const lower = kind!.toLowerCase();
      if (sub !== undefined && (lower === 'filter' || lower === 'merge')) sections[lower].add(sub);
      continue;
    }
    const entry = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
    if (!entry || !section) continue;
    const name = `${section}.${entry[1]!.toLowerCase()}`;
    const value = unquote(entry[2] ?? 'true');
    entries.push({ name, value });
    if (/^include(if\..*)?\.path$/i.test(name))
      includes.push(path.resolve(path.dirname(file), value.replace(/^~(?=\/)/, process.env.HOME ?? '~')));
  }
  return { sections: { filter: [...sections.filter], merge: [...sections.merge] }, entries, includes };
}

function unquote(value: string): string {
  const trimmed = value.replace(/\s+[#;].*$/, '').trim();
  return trimmed.startsWith('"') && trimmed.endsWith('"') ? trimmed.slice(1, -1).replace(/\\(.)/g, '$1') : trimmed;
}

/** The subcommand: the first argument that is not an option (or the value of `-c`/`-C`). */
function subcommand(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    if (arg === '-c' || arg === '-C') i += 1;
    else if (!arg.startsWith('-')) return arg;
  }
  return undefined;
}

/** The args with `--no-ext-diff --no-textconv` after a diff-making subcommand. */
function withDiffFlags(args: readonly string[], sub: string | undefined): string[] {
  if (sub === undefined || !DIFF_COMMANDS.has(sub)) return [...args];
  const at = args.indexOf(sub);
  const flags = sub === 'blame' ? ['--no-textconv'] : ['--no-ext-diff', '--no-textconv'];
  return [...args.slice(0, at + 1), ...flags, ...args.slice(at + 1)];
}

/** Forget the user's configuration read so far (tests that change HOME). */
export function forgetUserGitConfig(): void {
  userConfig = undefined;
}
