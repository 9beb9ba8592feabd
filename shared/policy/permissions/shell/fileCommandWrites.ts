import { hasOption, type OptionArity, type OptionSpec, type ReadOption } from './commandOptions.js';
import type { ShellWord } from './shellTypes.js';
import { wordShape } from './wordShape.js';
import type { WriteCollector, WriteReader } from './writeCollector.js';

const TOUCH: OptionSpec = {
  flags: 'acfhm',
  valued: 'drt',
  long: longs({ 'no-create': 'none', date: 'required', reference: 'required', time: 'required', 'no-dereference': 'none' }),
};

const OWNER: OptionSpec = {
  flags: 'cfhvRHLP',
  long: longs({
    changes: 'none',
    dereference: 'none',
    'no-dereference': 'none',
    from: 'required',
    'no-preserve-root': 'none',
    'preserve-root': 'none',
    quiet: 'none',
    silent: 'none',
    reference: 'required',
    recursive: 'none',
    verbose: 'none',
  }),
};

const SED: OptionSpec = {
  flags: 'nrsuzEb',
  valued: 'efl',
  fusedOptional: 'i',
  // `sed -i "$X" f`: the first word could turn out to be `--in-place=../x/*`.
  redirecting: true,
  long: longs({
    expression: 'required',
    file: 'required',
    'in-place': 'optional',
    'line-length': 'required',
    'null-data': 'none',
    'zero-terminated': 'none',
    quiet: 'none',
    silent: 'none',
    posix: 'none',
    'regexp-extended': 'none',
    separate: 'none',
    sandbox: 'none',
    debug: 'none',
    unbuffered: 'none',
    'follow-symlinks': 'none',
    binary: 'none',
  }),
};

/** perl's switches: -e/-E take a value; the others that take one only take it fused (`-i.bak`, `-l0`). */
const PERL: OptionSpec = {
  flags: 'acfgnpsStTuUvwWXh',
  valued: 'eE',
  fusedOptional: 'il0CdDxIMmFV',
  stopAtOperand: true,
  redirecting: true,
};

/**
 * Commands that write the files they name as operands: touch, mkdir, rm, rmdir, unlink, tee,
 * truncate, shred, chmod, chown, chgrp, dd's `of=`, and `sed -i` / `perl -i` (their file
 * operands; a backup suffix with a `/` puts backups in another folder, which is not followed).
 * Options are GNU coreutils'.
 */
export const FILE_COMMANDS: Record<string, WriteReader> = {
  touch: (args, out) => {
    const read = out.read(args, TOUCH);
    if (read) out.writeOperands(read.operands, { entry: hasOption(read.options, '-h', '--no-dereference') });
  },
  mkdir: operandsWritten({
    flags: 'pvZ',
    valued: 'm',
    long: longs({ mode: 'required', parents: 'none', verbose: 'none', context: 'optional' }),
  }),
  rm: operandsWritten(
    {
      flags: 'fiIrRdv',
      long: longs({
        force: 'none',
        interactive: 'optional',
        'one-file-system': 'none',
        'no-preserve-root': 'none',
        'preserve-root': 'optional',
        recursive: 'none',
        dir: 'none',
        verbose: 'none',
      }),
    },
    { entry: true },
  ),
  rmdir: operandsWritten(
    { flags: 'pv', long: longs({ 'ignore-fail-on-non-empty': 'none', parents: 'none', verbose: 'none' }) },
    { entry: true },
  ),
  unlink: operandsWritten({ long: longs({}) }, { entry: true }),
  tee: operandsWritten({ flags: 'aip', long: longs({ append: 'none', 'ignore-interrupts': 'none', 'output-error': 'optional' }) }),
  truncate: operandsWritten({
    flags: 'co',
    valued: 'rs',
    long: longs({ 'no-create': 'none', 'io-blocks': 'none', reference: 'required', size: 'required' }),
  }),
  shred: operandsWritten({
    flags: 'fuvxz',
    valued: 'ns',
    long: longs({
      force: 'none',
      iterations: 'required',
      'random-source': 'required',
      size: 'required',
      remove: 'optional',
      verbose: 'none',
      exact: 'none',
      zero: 'none',
    }),
  }),
  chmod: modeOrOwner({
    flags: 'cfvRhHLP',
    // `chmod -x file`: a mode that starts with a dash is an operand, not an option.
    operandLike: /^-[rwxXstugoa0-7,+=-]+$/,
    long: longs({
      changes: 'none',
      silent: 'none',
      quiet: 'none',
      verbose: 'none',
      'no-preserve-root': 'none',
      'preserve-root': 'none',
      reference: 'required',
      recursive: 'none',
      dereference: 'none',
      'no-dereference': 'none',
    }),
  }),
  chown: modeOrOwner(OWNER),
  chgrp: modeOrOwner(OWNER),
  dd: (args, out) => {
    out.operandsFromInput();
    for (const arg of args) {
      if (arg.value.startsWith('of=')) out.write(valueAfter(arg, 3));
      else if (wordShape(arg).kind !== 'literal' && !/^[a-z]+=/.test(arg.value))
        out.fail(`dd's operand ${arg.raw} is only known when it runs and may name the file it writes`);
    }
  },
  sed: (args, out) => {
    const read = out.read(args, SED);
    if (!read || !inPlace(read.options, ['-i', '--in-place'], out)) return;
    // Without -e or -f the first operand is the script.
    const scripted = hasOption(read.options, '-e', '-f', '--expression', '--file');
    out.writeOperands(scripted ? read.operands : read.operands.slice(1));
  },
  perl: (args, out) => {
    const read = out.read(args, PERL);
    // Without -i perl writes what its program says, like node or python: judged by where it runs.
    if (!read || !inPlace(read.options, ['-i'], out)) return;
    const scripted = hasOption(read.options, '-e', '-E');
    out.writeOperands(scripted ? read.operands : read.operands.slice(1));
  },
};

function longs(specific: Record<string, OptionArity>): Record<string, OptionArity> {
  return { help: 'none', version: 'none', ...specific };
}

function operandsWritten(spec: OptionSpec, how: { entry?: boolean } = {}): WriteReader {
  return (args, out) => {
    const read = out.read(args, spec);
    if (read) out.writeOperands(read.operands, how);
  };
}

/** chmod MODE FILE…, chown OWNER FILE…; with --reference every operand is a file. */
function modeOrOwner(spec: OptionSpec): WriteReader {
  return (args, out) => {
    const read = out.read(args, spec);
    if (!read) return;
    if (hasOption(read.options, '-R', '--recursive') && hasOption(read.options, '-L')) {
      return out.fail(`${out.name} -R -L follows symbolic links while it recurses, so where it writes depends on the links it meets`);
    }
    const files = hasOption(read.options, '--reference') ? read.operands : read.operands.slice(1);
    out.writeOperands(files);
  };
}

/** Whether an in-place option is given; a backup suffix that leads elsewhere cannot be followed. */
function inPlace(options: ReadOption[], names: string[], out: WriteCollector): boolean {
  const given = options.filter((option) => names.includes(option.name));
  for (const suffix of given.map((option) => option.value).filter((value) => value !== undefined)) {
    if (suffix.dynamic || suffix.value.includes('/'))
      out.fail(`the backup suffix ${suffix.raw} of ${out.name} -i may put backups in another folder`);
  }
  return given.length > 0;
}

function valueAfter(word: ShellWord, from: number): ShellWord {
  const value = word.value.slice(from);
  return { value, raw: value, dynamic: word.dynamic };
}
