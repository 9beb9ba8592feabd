import type { ShellWord } from './shellTypes.js';

/**
 * Commands that only read: a Bash call made of these alone (and no redirection that writes) needs
 * only `read-only` mode, so read-only roles may run them. Most take any argument; the rest list
 * the arguments that would make them write or run something else. For those, an argument the
 * shell computes (`$x`, an unquoted glob) could turn into such an option, so it disqualifies them.
 */
type ArgumentCheck = (args: string[]) => boolean;

const ANY: ArgumentCheck = () => true;

const without =
  (...forbidden: string[]): ArgumentCheck =>
  (args) =>
    !args.some((arg) => forbidden.some((option) => usesOption(arg, option)));

/** `arg` is `option`, or `option` with its value fused (`--output=f`, `-of`). */
function usesOption(arg: string, option: string): boolean {
  if (arg === option) return true;
  if (option.startsWith('--')) return arg.startsWith(`${option}=`);
  const isShort = option.length === 2;
  return isShort && !arg.startsWith('--') && arg.startsWith(option);
}

const noOperands: ArgumentCheck = (args) => args.every((arg) => arg.startsWith('-'));

const READ_ONLY: Record<string, ArgumentCheck> = {
  ls: ANY,
  cat: ANY,
  head: ANY,
  tail: ANY,
  wc: ANY,
  grep: ANY,
  egrep: ANY,
  fgrep: ANY,
  pwd: ANY,
  echo: ANY,
  printf: ANY,
  true: ANY,
  false: ANY,
  test: ANY,
  '[': ANY,
  '[[': ANY,
  cd: ANY,
  pushd: ANY,
  popd: ANY,
  which: ANY,
  whereis: ANY,
  type: ANY,
  stat: ANY,
  du: ANY,
  df: ANY,
  basename: ANY,
  dirname: ANY,
  realpath: ANY,
  readlink: ANY,
  diff: ANY,
  cmp: ANY,
  comm: ANY,
  cut: ANY,
  tr: ANY,
  nl: ANY,
  od: ANY,
  hexdump: ANY,
  column: ANY,
  fold: ANY,
  paste: ANY,
  rev: ANY,
  seq: ANY,
  tac: ANY,
  strings: ANY,
  expr: ANY,
  sleep: ANY,
  whoami: ANY,
  id: ANY,
  groups: ANY,
  uname: ANY,
  nproc: ANY,
  uptime: ANY,
  printenv: ANY,
  env: ANY,
  ps: ANY,
  pgrep: ANY,
  jq: ANY,
  md5sum: ANY,
  sha1sum: ANY,
  sha256sum: ANY,
  sha512sum: ANY,
  b2sum: ANY,
  cksum: ANY,
  // These have an option that writes a file or runs another program.
  rg: without('--pre'),
  sort: without('-o', '--output', '--compress-program'),
  tree: without('-o'),
  file: without('-C', '--compile'),
  date: without('-s', '--set'),
  uniq: (args) => args.filter((arg) => !arg.startsWith('-')).length <= 1,
  hostname: noOperands,
  command: (args) => args[0] === '-v' || args[0] === '-V',
  find: without('-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls'),
  git: isReadOnlyGit,
};

export function isReadOnlyCommand(argv: ShellWord[]): boolean {
  const [name, ...args] = argv;
  if (!name || name.dynamic) return false;
  // Own keys only: `constructor` or `toString` must not find Object's.
  const check = Object.hasOwn(READ_ONLY, name.value) ? READ_ONLY[name.value] : undefined;
  if (!check) return false;
  if (check !== ANY && args.some((arg) => arg.dynamic || hasUnquotedGlob(arg.raw))) return false;
  return check(args.map((arg) => arg.value));
}

const GIT_READ_ONLY = new Set([
  'status',
  'log',
  'diff',
  'show',
  'rev-parse',
  'ls-files',
  'ls-tree',
  'cat-file',
  'blame',
  'shortlog',
  'describe',
  'grep',
  'rev-list',
  'merge-base',
  'name-rev',
  'show-ref',
  'for-each-ref',
  'count-objects',
  'check-ignore',
  'whatchanged',
  'version',
]);

/** Options that make an otherwise reading git command write a file or open another program. */
const GIT_WRITING_OPTIONS = ['--output', '-O', '--open-files-in-pager'];

function isReadOnlyGit(args: string[]): boolean {
  let index = 0;
  // `-c name=value` is left out on purpose: config such as core.pager or core.fsmonitor runs commands.
  while (index < args.length && args[index]!.startsWith('-')) {
    const option = args[index]!;
    if (option === '-C') index += 2;
    else if (option === '--no-pager' || option === '--no-optional-locks' || option === '-P') index += 1;
    else return false;
  }
  const sub = args[index];
  const rest = args.slice(index + 1);
  if (!sub || !without(...GIT_WRITING_OPTIONS)(rest)) return false;
  if (GIT_READ_ONLY.has(sub)) return true;
  const operands = rest.filter((arg) => !arg.startsWith('-'));
  const listing = rest.includes('--list') || rest.includes('-l');
  switch (sub) {
    case 'branch':
      return (
        without(
          '-d',
          '-D',
          '--delete',
          '-m',
          '-M',
          '--move',
          '-c',
          '-C',
          '--copy',
          '-f',
          '--force',
          '-u',
          '--set-upstream-to',
          '--unset-upstream',
          '--edit-description',
        )(rest) &&
        (operands.length === 0 || listing)
      );
    case 'tag':
      return (
        without('-d', '--delete', '-a', '--annotate', '-s', '--sign', '-f', '--force', '-m', '-F')(rest) &&
        (operands.length === 0 || listing)
      );
    case 'remote':
      return operands.length === 0 || ['show', 'get-url'].includes(operands[0]!);
    case 'stash':
      return ['list', 'show'].includes(operands[0] ?? '');
    case 'config':
      return rest.some((arg) => ['--get', '--get-all', '--get-regexp', '--list', '-l'].includes(arg));
    case 'reflog':
      return operands.length === 0 || operands[0] === 'show';
    default:
      return false;
  }
}

/** Whether a word, as written, has a glob character outside quotes (so the shell may expand it). */
function hasUnquotedGlob(raw: string): boolean {
  let quote: string | undefined;
  for (let index = 0; index < raw.length; index += 1) {
    const char = raw[index]!;
    if (quote) {
      if (char === quote) quote = undefined;
      else if (char === '\\' && quote === '"') index += 1;
    } else if (char === '\\') index += 1;
    else if (char === "'" || char === '"') quote = char;
    else if (char === '*' || char === '?' || char === '[') return true;
  }
  return false;
}
