import path from 'node:path';
import { isHarmlessWriteTarget } from './bashAnalysis.js';
import { hasOption, type OptionArity, type OptionSpec, type ReadOption, valuesOf } from './commandOptions.js';
import type { PossibleCwds, ShellWord } from './shellTypes.js';
import { wordShape } from './wordShape.js';
import { baseWord, childWord, type WriteCollector, type WriteReader } from './writeCollector.js';

function longs(names: string, arity: OptionArity): Record<string, OptionArity> {
  return Object.fromEntries(names.split(' ').map((name) => [name, arity]));
}

const COMMON = longs('help version', 'none');

const CP: OptionSpec = {
  flags: 'abdfHilLnPpRrsuvxTZ',
  valued: 'St',
  redirecting: true,
  long: {
    ...COMMON,
    ...longs(
      'archive attributes-only copy-contents debug force interactive link dereference no-clobber no-dereference no-target-directory one-file-system parents recursive remove-destination strip-trailing-slashes symbolic-link verbose keep-directory-symlink',
      'none',
    ),
    ...longs('no-preserve sparse suffix target-directory', 'required'),
    ...longs('backup preserve reflink update context', 'optional'),
  },
};

const MV: OptionSpec = {
  flags: 'bfinTuvZ',
  valued: 'St',
  redirecting: true,
  long: {
    ...COMMON,
    ...longs('debug exchange force interactive no-clobber no-copy no-target-directory strip-trailing-slashes verbose', 'none'),
    ...longs('suffix target-directory', 'required'),
    ...longs('backup update context', 'optional'),
  },
};

const INSTALL: OptionSpec = {
  flags: 'bcCdDpsTvZ',
  valued: 'gmoSt',
  redirecting: true,
  long: {
    ...COMMON,
    ...longs('compare debug directory preserve-timestamps strip no-target-directory verbose preserve-context', 'none'),
    ...longs('group mode owner strip-program suffix target-directory', 'required'),
    ...longs('backup context', 'optional'),
  },
};

const LN: OptionSpec = {
  flags: 'bdfFinLPrsTv',
  valued: 'St',
  redirecting: true,
  long: {
    ...COMMON,
    ...longs('directory force interactive logical no-dereference physical relative symbolic no-target-directory verbose', 'none'),
    ...longs('suffix target-directory', 'required'),
    ...longs('backup', 'optional'),
  },
};

const RSYNC: OptionSpec = {
  flags: 'vqcarRbudLlKkHpEAXogDtUNOJSnWxCyIPhz46mi0sF8',
  valued: 'eBTfM@',
  redirecting: true,
  long: {
    ...COMMON,
    ...longs(
      'verbose quiet no-motd checksum archive recursive relative no-relative no-implied-dirs backup update inplace append append-verify dirs mkpath links copy-links ' +
        'copy-unsafe-links safe-links munge-links copy-dirlinks keep-dirlinks hard-links perms executability acls xattrs owner group devices specials times atimes ' +
        'open-noatime crtimes omit-dir-times omit-link-times super fake-super sparse preallocate dry-run whole-file one-file-system existing ignore-existing ' +
        'remove-source-files delete delete-before delete-during delete-delay delete-after delete-excluded ignore-missing-args delete-missing-args ignore-errors force ' +
        'partial delay-updates prune-empty-dirs numeric-ids ignore-times size-only compress cvs-exclude from0 protect-args secluded-args trust-sender progress ' +
        'stats human-readable itemize-changes list-only ipv4 ipv6 fsync no-perms no-owner no-group no-times no-links no-recursive no-compress no-whole-file ' +
        'no-inc-recursive blocking-io copy-as fuzzy msgs2stderr 8-bit-output',
      'none',
    ),
    ...longs(
      'rsh rsync-path backup-dir suffix temp-dir partial-dir compare-dest copy-dest link-dest filter exclude include exclude-from include-from files-from ' +
        'chmod chown usermap groupmap timeout contimeout modify-window max-size min-size max-delete max-alloc block-size bwlimit out-format log-file ' +
        'log-file-format password-file port sockopts address write-batch only-write-batch read-batch protocol iconv checksum-seed checksum-choice ' +
        'compress-choice compress-level skip-compress info debug remote-option outbuf early-input stop-after stop-at',
      'required',
    ),
  },
};

/**
 * Commands that copy, move or link sources to a destination: cp, mv, install, ln, rsync. What
 * they write is the destination (or `-t DIR`), and each source's name inside it, since a link
 * already there would be followed; mv and `rsync --remove-source-files` also remove their
 * sources. A hard link to a file outside the workspace would let later writes through the link
 * change that file, so hard-linked sources are reported; so are where symbolic links lead.
 */
export const COPY_COMMANDS: Record<string, WriteReader> = {
  cp: (args, out) => {
    const read = out.read(args, CP);
    if (!read) return;
    const { destinations, sources } = destinationOf(read, out);
    const parents = hasOption(read.options, '--parents');
    for (const destination of destinations) copyInto(destination, sources, out, parents);
    if (hasOption(read.options, '-l', '--link')) for (const source of sources) out.hardLink(source);
    if (hasOption(read.options, '-s', '--symbolic-link')) {
      for (const destination of destinations) for (const source of sources) out.linkTo(source, linkFolders(destination, out));
    }
  },
  mv: (args, out) => {
    const read = out.read(args, MV);
    if (!read) return;
    const { destinations, sources } = destinationOf(read, out);
    // The sources leave their folders: with -t, xargs may add sources nobody can see.
    out.operandsFromInput();
    for (const destination of destinations) copyInto(destination, sources, out, false);
    for (const source of sources) out.write(source, { entry: true });
  },
  install: (args, out) => {
    const read = out.read(args, INSTALL);
    if (!read) return;
    if (hasOption(read.options, '-d', '--directory')) return out.writeOperands(read.operands);
    const { destinations, sources } = destinationOf(read, out);
    for (const destination of destinations) copyInto(destination, sources, out, false);
  },
  ln: (args, out) => {
    const read = out.read(args, LN);
    if (!read) return;
    out.operandsFromInput();
    const folders = valuesOf(read.options, '-t', '--target-directory');
    const operands = read.operands;
    // `ln TARGET` links in the current folder; `ln TARGET… NAME|DIR`; `ln -t DIR TARGET…`.
    const targets = folders.length > 0 || operands.length === 1 ? operands : operands.slice(0, -1);
    const places = folders.length > 0 ? folders : operands.length === 1 ? [{ value: '.', raw: '.', dynamic: false }] : operands.slice(-1);
    const symbolic = hasOption(read.options, '-s', '--symbolic');
    const relative = hasOption(read.options, '-r', '--relative');
    for (const place of places) {
      copyInto(place, targets, out, false);
      for (const target of targets) {
        if (!symbolic) out.hardLink(target);
        // A link's text is read from the link's folder; with -r, ln works it out from here.
        else out.linkTo(target, relative ? out.command.cwd : linkFolders(place, out));
      }
    }
  },
  rsync: (args, out) => {
    const read = out.read(args, RSYNC);
    if (!read) return;
    for (const file of valuesOf(read.options, '--log-file', '--write-batch', '--only-write-batch')) out.write(file);
    if (read.operands.length < 2) return out.operandsFromInput();
    out.operandsFromInput();
    const destination = read.operands.at(-1)!;
    const sources = read.operands.slice(0, -1).filter(isLocal);
    if (hasOption(read.options, '--remove-source-files')) for (const source of sources) out.write(source, { entry: true });
    if (!isLocal(destination)) return;
    if (hasOption(read.options, '-K', '--keep-dirlinks'))
      return out.fail('rsync --keep-dirlinks writes through links to folders it finds in the destination');
    copyInto(destination, sources, out, hasOption(read.options, '-R', '--relative'));
    // Relative to the destination (or, for --partial-dir, to each file's folder inside it).
    const near = [...(out.command.cwd ?? []), ...(out.foldersIn(destination) ?? [])];
    for (const dir of valuesOf(read.options, '--backup-dir', '--temp-dir', '-T', '--partial-dir'))
      out.write(dir, { cwd: out.command.cwd && near });
  },
};

/** The destination folders (`-t DIR`, or the last operand) and the sources. */
function destinationOf(
  read: { options: ReadOption[]; operands: ShellWord[] },
  out: WriteCollector,
): { destinations: ShellWord[]; sources: ShellWord[] } {
  const folders = valuesOf(read.options, '-t', '--target-directory');
  if (folders.length > 0) return { destinations: folders, sources: read.operands };
  // Without -t the destination is the last operand, and xargs appends operands after it.
  out.operandsFromInput();
  if (read.operands.length < 2) return { destinations: [], sources: [] };
  return { destinations: read.operands.slice(-1), sources: read.operands.slice(0, -1) };
}

/** The destination and, for each source whose name can be told, that name inside it (its whole path with --parents). */
function copyInto(destination: ShellWord, sources: ShellWord[], out: WriteCollector, keepsPath: boolean): void {
  out.write(destination);
  if (isHarmlessWriteTarget(destination.value)) return;
  for (const source of sources) {
    if (keepsPath) out.write(childWord(destination, source));
    // Under find -exec, `{}` is a path under find's start: its name inside the destination cannot be told, the destination covers it.
    else if (wordShape(source).kind !== 'unknown' && !(out.command.placeholder && source.value.includes('{}')))
      out.write(childWord(destination, baseWord(source)));
  }
}

/** Where a link made at `place` is read from: inside it when it is a folder, beside it otherwise. */
function linkFolders(place: ShellWord, out: WriteCollector): PossibleCwds {
  const inside = out.foldersIn(place);
  const beside = out.foldersIn({ ...place, value: path.posix.dirname(place.value) });
  return inside && beside ? [...new Set([...inside, ...beside])] : undefined;
}

/** rsync's `host:path` and `rsync://` operands are on another machine. */
function isLocal(word: ShellWord): boolean {
  return !/^[^/]*:/.test(word.value) && !word.value.startsWith('rsync://');
}
