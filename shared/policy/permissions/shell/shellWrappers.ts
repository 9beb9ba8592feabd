import type { ShellWord } from './shellTypes.js';

/**
 * Commands that run another command (`timeout 5 npm test`, `xargs grep x`, `sudo rm …`). Rules,
 * the read-only list and the destructive list judge the command that really runs, so these are
 * stripped first. Each wrapper's options are listed exactly: an option we do not know might take
 * a value and shift where the real command starts, so it makes the command unclear instead.
 */
interface WrapperSpec {
  /** Options followed by a value (`-s KILL`), also accepted fused (`-sKILL`, `--signal=KILL`). */
  valued: string[];
  /** Options without a value. */
  flags: string[];
  /** Plain arguments before the command (timeout's DURATION). */
  positional?: number;
  /** Leading NAME=VALUE words are skipped (env). */
  assignments?: boolean;
  /** With one of these flags the wrapper runs nothing itself (`command -v x`). */
  lookupFlags?: string[];
  /** What runs when no command is given (xargs runs echo). */
  defaultCommand?: string;
  /** Runs the command with raised privileges. */
  elevated?: boolean;
  /** Valued options that run the command in another folder (`env -C DIR`). */
  chdir?: string[];
}

const WRAPPERS: Record<string, WrapperSpec> = {
  timeout: {
    valued: ['-s', '--signal', '-k', '--kill-after'],
    flags: ['--preserve-status', '--foreground', '-v', '--verbose'],
    positional: 1,
  },
  nice: { valued: ['-n', '--adjustment'], flags: [] },
  nohup: { valued: [], flags: [] },
  time: { valued: [], flags: ['-p'] },
  builtin: { valued: [], flags: [] },
  setsid: { valued: [], flags: ['-f', '--fork', '-w', '--wait', '-c', '--ctty'] },
  env: {
    valued: ['-u', '--unset', '-C', '--chdir'],
    flags: ['-i', '--ignore-environment', '-0', '--null', '-'],
    assignments: true,
    chdir: ['-C', '--chdir'],
  },
  command: { valued: [], flags: ['-p'], lookupFlags: ['-v', '-V'] },
  exec: { valued: ['-a'], flags: ['-c', '-l'] },
  stdbuf: { valued: ['-i', '-o', '-e', '--input', '--output', '--error'], flags: [] },
  xargs: {
    valued: [
      '-a',
      '--arg-file',
      '-d',
      '--delimiter',
      '-E',
      '-I',
      '-L',
      '--max-lines',
      '-n',
      '--max-args',
      '-P',
      '--max-procs',
      '-s',
      '--max-chars',
      '--process-slot-var',
    ],
    flags: ['-0', '--null', '-r', '--no-run-if-empty', '-t', '--verbose', '-p', '--interactive', '-x', '--exit', '-o', '--open-tty'],
    defaultCommand: 'echo',
  },
  sudo: {
    valued: [
      '-u',
      '--user',
      '-g',
      '--group',
      '-h',
      '--host',
      '-p',
      '--prompt',
      '-C',
      '--close-from',
      '-D',
      '--chdir',
      '-r',
      '--role',
      '-t',
      '--type',
      '-T',
      '--command-timeout',
      '-U',
      '--other-user',
    ],
    flags: [
      '-E',
      '--preserve-env',
      '-H',
      '--set-home',
      '-n',
      '--non-interactive',
      '-P',
      '--preserve-groups',
      '-S',
      '--stdin',
      '-b',
      '--background',
      '-k',
      '--reset-timestamp',
      '-K',
      '--',
    ],
    elevated: true,
    chdir: ['-D', '--chdir'],
  },
};

export interface Unwrapped {
  /** The command that really runs, with its arguments. */
  argv: ShellWord[];
  /** The wrappers stripped, outermost first. */
  wrappers: string[];
  elevated: boolean;
  /** Folders the wrappers move into before running it (`env -C DIR`), outermost first. */
  chdir: ShellWord[];
  /** Set when the wrapper's options cannot be read, so the real command is not known. */
  unclear?: string;
}

export function unwrapCommand(words: ShellWord[]): Unwrapped {
  let argv = words;
  const wrappers: string[] = [];
  let elevated = false;
  const chdir: ShellWord[] = [];
  for (;;) {
    const name = argv[0];
    const spec = name && !name.dynamic && Object.hasOwn(WRAPPERS, name.value) ? WRAPPERS[name.value] : undefined;
    if (!name || !spec) return { argv, wrappers, elevated, chdir };
    const start = commandStart(argv, spec);
    // A lookup (`command -v x`) or a bare `env` runs nothing: judge the wrapper itself.
    if (start === 'self') return { argv, wrappers, elevated, chdir };
    if ('unclear' in start) {
      return { argv, wrappers, elevated, chdir, unclear: `cannot tell which command \`${name.value}\` runs: ${start.unclear}` };
    }
    let rest = argv.slice(start.index);
    if (rest.length === 0) {
      // `nohup` alone runs nothing: judge it as written.
      if (!spec.defaultCommand) return { argv, wrappers, elevated, chdir };
      rest = [{ value: spec.defaultCommand, raw: spec.defaultCommand, dynamic: false }];
    }
    wrappers.push(name.value);
    elevated ||= spec.elevated === true;
    chdir.push(...start.chdir);
    argv = rest;
  }
}

/** Where the wrapped command starts (and the folders it moves into), 'self' when none runs, or why it cannot be told. */
function commandStart(argv: ShellWord[], spec: WrapperSpec): { index: number; chdir: ShellWord[] } | { unclear: string } | 'self' {
  let index = 1;
  let positional = spec.positional ?? 0;
  const chdir: ShellWord[] = [];
  while (index < argv.length) {
    const word = argv[index]!;
    if (word.dynamic && word.value.startsWith('-')) return { unclear: `its option ${word.raw} is computed when the command runs` };
    const value = word.value;
    if (value === '--') {
      index += 1;
      break;
    }
    if (value.startsWith('-') && value.length > 1) {
      if (spec.lookupFlags?.includes(value)) return 'self';
      const consumed = optionWidth(value, spec);
      if (consumed === undefined) return { unclear: `it has an option we do not know (${value})` };
      const folder = chdirValue(argv, index, consumed, spec);
      if (folder) chdir.push(folder);
      index += consumed;
      continue;
    }
    if (spec.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(value)) {
      index += 1;
      continue;
    }
    if (positional > 0) {
      positional -= 1;
      index += 1;
      continue;
    }
    break;
  }
  if (index > argv.length) return { unclear: 'an option is missing its value' };
  if (index === argv.length && spec.assignments) return 'self';
  return { index, chdir };
}

/** The folder a chdir option at `index` names: the next word, or the value fused to it (`-C/x`, `--chdir=/x`). */
function chdirValue(argv: ShellWord[], index: number, width: number, spec: WrapperSpec): ShellWord | undefined {
  const word = argv[index]!;
  const option = spec.chdir?.find((name) => word.value === name || word.value.startsWith(name.startsWith('--') ? `${name}=` : name));
  if (!option) return undefined;
  if (width === 2) return argv[index + 1];
  const value = word.value.slice(option.length + (option.startsWith('--') ? 1 : 0));
  return { value, raw: value, dynamic: word.dynamic };
}

/** How many words an option takes (1 or 2), or undefined when it is not a known option. */
function optionWidth(option: string, spec: WrapperSpec): number | undefined {
  if (spec.flags.includes(option)) return 1;
  if (spec.valued.includes(option)) return 2;
  if (option.startsWith('--')) {
    const name = option.slice(0, option.indexOf('=') === -1 ? undefined : option.indexOf('='));
    return option.includes('=') && (spec.valued.includes(name) || spec.flags.includes(name)) ? 1 : undefined;
  }
  // nice's old form: `nice -10 cmd`.
  if (/^-\d+$/.test(option) && spec.valued.includes('-n')) return 1;
  // A value fused to a short option: `-n5`, `-I{}`, `-sKILL`.
  if (spec.valued.includes(option.slice(0, 2))) return 1;
  // Clustered short flags: `-0r`.
  const letters = [...option.slice(1)];
  return letters.every((letter) => spec.flags.includes(`-${letter}`)) ? 1 : undefined;
}
