import type { ShellWord } from './shellTypes.js';

/**
 * How `find [-H|-L|-P] [-D opts] [-Olevel] [start…] [expression]` is laid out: where it starts,
 * whether it follows symbolic links, and which commands its `-exec` family runs. The write checks
 * need all three: `-delete` and `-exec rm {} \;` act on what lies under the start paths.
 */
export interface FindLayout {
  /** The start paths (`.` when none is given). */
  starts: ShellWord[];
  /** `-L` or `-follow`: it walks into linked folders, wherever they lead. */
  followsLinks: boolean;
  /** What each `-exec`, `-execdir`, `-ok`, `-okdir` runs; `inFoundFolder` for the -dir forms. */
  runs: Array<{ argv: ShellWord[]; inFoundFolder: boolean }>;
}

const EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);

export function findLayout(args: ShellWord[]): FindLayout {
  let index = 0;
  let followsLinks = false;
  while (index < args.length && /^-([HLP]|D|O\d*)$/.test(args[index]!.value)) {
    if (args[index]!.value === '-L') followsLinks = true;
    index += args[index]!.value === '-D' ? 2 : 1;
  }
  const starts: ShellWord[] = [];
  while (index < args.length && !/^[-(!),]/.test(args[index]!.value)) starts.push(args[index++]!);
  const runs: FindLayout['runs'] = [];
  for (; index < args.length; index += 1) {
    const word = args[index]!.value;
    if (word === '-follow') followsLinks = true;
    if (!EXEC.has(word)) continue;
    const argv: ShellWord[] = [];
    index += 1;
    while (index < args.length && args[index]!.value !== ';' && args[index]!.value !== '+') argv.push(args[index++]!);
    if (argv.length > 0) runs.push({ argv, inFoundFolder: word.endsWith('dir') });
  }
  return { starts: starts.length > 0 ? starts : [{ value: '.', raw: '.', dynamic: false }], followsLinks, runs };
}
