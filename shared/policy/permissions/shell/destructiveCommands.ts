import type { ShellCommand } from './shellTypes.js';

/**
 * Commands whose damage cannot be undone from the worktree: they need an allow rule that names
 * them, even in full-access mode. Returns why the command is destructive, or undefined.
 */
export function destructiveReason(command: ShellCommand): string | undefined {
  if (command.elevated) return 'it runs through sudo, as root';
  const [written, ...rest] = command.argv.map((word) => word.value);
  if (!written) return undefined;
  // `/bin/rm` is rm.
  const name = written.slice(written.lastIndexOf('/') + 1);
  if (name === 'rm') return rmReason(rest);
  if (name === 'git') return gitReason(rest);
  if (name === 'dd' && rest.some((arg) => arg.startsWith('of='))) return 'dd writes raw bytes over its of= target';
  if (/^mkfs(\.|$)/.test(name) || ['mke2fs', 'mkswap', 'wipefs'].includes(name)) return `${name} formats a device`;
  if (name === 'shred') return 'shred overwrites files beyond recovery';
  if (runsDownloadedCode(name, rest, command.pipedFrom)) {
    return `piping a download into ${name} runs code nobody has read (${command.pipedFrom.join(' | ')} | ${name})`;
  }
  return undefined;
}

function rmReason(args: string[]): string | undefined {
  const options = optionsBefore(args, '--');
  const recursive = options.some((option) => option === '--recursive' || shortFlag(option, 'r') || shortFlag(option, 'R'));
  const force = options.some((option) => option === '--force' || shortFlag(option, 'f'));
  if (options.includes('--no-preserve-root')) return 'rm --no-preserve-root can delete the whole filesystem';
  if (recursive && force) return 'rm -rf deletes folder trees without asking';
  return undefined;
}

/** git options before the subcommand that take a value as the next word. */
const GIT_VALUED_GLOBALS = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--exec-path', '--config-env']);

function gitReason(args: string[]): string | undefined {
  let index = 0;
  while (index < args.length && args[index]!.startsWith('-')) index += GIT_VALUED_GLOBALS.has(args[index]!) ? 2 : 1;
  const sub = args[index];
  const options = args.slice(index + 1);
  switch (sub) {
    case 'reset':
      return options.includes('--hard') ? 'git reset --hard throws away uncommitted changes' : undefined;
    case 'push': {
      const forced = options.some(
        (option) =>
          option === '--force' ||
          option.startsWith('--force-with-lease') ||
          option === '--mirror' ||
          shortFlag(option, 'f') ||
          /^\+/.test(option),
      );
      return forced ? 'git push --force rewrites history on the remote' : undefined;
    }
    case 'clean':
      return options.some((option) => option === '--force' || shortFlag(option, 'f')) ? 'git clean -f deletes untracked files' : undefined;
    case 'checkout':
      return options.some((option) => option === '--force' || option === '-f')
        ? 'git checkout --force throws away local changes'
        : undefined;
    case 'branch':
      return options.some((option) => option === '-D' || shortFlag(option, 'D'))
        ? 'git branch -D deletes a branch whether or not it was merged'
        : undefined;
    default:
      return undefined;
  }
}

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish']);
const INTERPRETERS = new Set(['python', 'python3', 'perl', 'ruby', 'node']);
const DOWNLOADERS = new Set(['curl', 'wget']);

/** `curl … | sh`: a shell (or an interpreter reading its program from stdin) fed by a download. */
function runsDownloadedCode(name: string, args: string[], pipedFrom: string[]): boolean {
  if (!pipedFrom.some((source) => DOWNLOADERS.has(source))) return false;
  if (SHELLS.has(name)) return true;
  return INTERPRETERS.has(name) && (args.length === 0 || args[0] === '-');
}

function optionsBefore(args: string[], end: string): string[] {
  const stop = args.indexOf(end);
  return (stop === -1 ? args : args.slice(0, stop)).filter((arg) => arg.startsWith('-'));
}

/** A short-option cluster (`-rf`, `-xdf`) that contains `letter`. */
function shortFlag(option: string, letter: string): boolean {
  return /^-[A-Za-z]+$/.test(option) && option.includes(letter);
}
