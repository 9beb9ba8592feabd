import path from 'node:path';
import { type OptionSpec, type ReadOption, readArguments } from './commandOptions.js';
import type { PossibleCwds, ShellCommand, ShellWord } from './shellTypes.js';
import { wordShape } from './wordShape.js';

/** A path a command writes, as its words name it. */
export interface WriteTarget {
  /** The path as the command names it; may be a pattern the shell expands (`build/*.o`). */
  path: ShellWord;
  /** The folders a relative path is relative to; undefined when a `cd` made them unknown. */
  cwd: PossibleCwds;
  /** The entry itself is written (rm, mv's source): a symbolic link there is removed, not followed. */
  entry?: boolean;
  /** Exempt from the guarded-path rule: git writing its own repository folder. */
  unguarded?: boolean;
}

export interface CommandWrites {
  targets: WriteTarget[];
  /** Files a hard link would make writable through the link (the sources of `ln`, `cp -l`). */
  hardLinked: WriteTarget[];
  /** Where the symbolic links it makes lead (`ln -s`, `cp -s`). */
  linksTo: WriteTarget[];
  /** Why some of what it writes cannot be told before it runs. */
  unknown?: string;
}

/** Reads one command's arguments (argv without the name) into `out`. */
export type WriteReader = (args: ShellWord[], out: WriteCollector) => void;

/** What readers report into: each path is checked for what the shell does to it, and `{}` of find -exec is resolved. */
export class WriteCollector {
  private readonly targets: WriteTarget[] = [];
  private readonly hardLinked: WriteTarget[] = [];
  private readonly linksTo: WriteTarget[] = [];
  private unknown?: string;

  constructor(readonly command: ShellCommand) {}

  get name(): string {
    return path.posix.basename(this.command.argv[0]?.value ?? '');
  }

  /** `word` is written; relative to the command's folder unless `cwd` says otherwise. */
  write(word: ShellWord, how: { entry?: boolean; unguarded?: boolean; cwd?: PossibleCwds } = {}): void {
    this.add(this.targets, word, how);
  }

  /** Operands that are written: under xargs, more of them come from its input. */
  writeOperands(words: ShellWord[], how: { entry?: boolean } = {}): void {
    this.operandsFromInput();
    for (const word of words) this.write(word, how);
  }

  /** Under xargs the command gets operands nobody can see before it runs. */
  operandsFromInput(): void {
    if (this.command.wrappers.includes('xargs')) {
      this.fail(
        `xargs adds operands it reads from its input, so which files ${this.name} writes is only known when it runs; name the files literally, or use find … -delete`,
      );
    }
  }

  hardLink(word: ShellWord): void {
    this.add(this.hardLinked, word, {});
  }

  linkTo(word: ShellWord, cwd: PossibleCwds): void {
    this.add(this.linksTo, word, { cwd });
  }

  /** The command's options and operands, or undefined (and the reason noted) when they cannot be read. */
  read(args: ShellWord[], spec: OptionSpec): { options: ReadOption[]; operands: ShellWord[] } | undefined {
    const read = readArguments(args, spec);
    if (read.ok) return read;
    this.fail(read.reason);
    return undefined;
  }

  /** Something it writes cannot be told; the first reason is kept. */
  fail(why: string): void {
    this.unknown ??= why;
  }

  /** The command's folders moved into `dir` (a link's folder, tar's -C); undefined when unknown. */
  foldersIn(dir: ShellWord, from: PossibleCwds = this.command.cwd): PossibleCwds {
    if (from === undefined || wordShape(dir).kind !== 'literal') return undefined;
    return from.map((cwd) => (path.posix.isAbsolute(dir.value) ? path.posix.normalize(dir.value) : path.posix.join(cwd, dir.value)));
  }

  result(): CommandWrites {
    const found: CommandWrites = { targets: this.targets, hardLinked: this.hardLinked, linksTo: this.linksTo };
    if (this.unknown) found.unknown = this.unknown;
    return found;
  }

  private add(list: WriteTarget[], word: ShellWord, how: { entry?: boolean; unguarded?: boolean; cwd?: PossibleCwds }): void {
    const shape = wordShape(word);
    if (shape.kind === 'unknown') return this.fail(shape.why);
    const placeholder = this.command.placeholder;
    if (placeholder && word.value.includes('{}')) {
      const suffix = word.value.slice(2);
      if (!word.value.startsWith('{}') || suffix.includes('/') || suffix.includes('{}')) {
        return this.fail(`${word.raw} puts find's {} inside a longer path, which is only known when it runs`);
      }
      if (placeholder.followsLinks) return this.fail(`find follows symbolic links here, so the {} it passes may lead anywhere`);
      for (const start of placeholder.starts) {
        if (wordShape(start).kind === 'unknown') return this.fail(`find's start path ${start.raw} is only known when it runs`);
        list.push({ ...how, path: joinWords(start, suffix), cwd: placeholder.cwd });
      }
      return;
    }
    // An explicit `cwd: undefined` means a folder that cannot be told, not the command's own.
    list.push({ ...how, path: word, cwd: 'cwd' in how ? how.cwd : this.command.cwd });
  }
}

/** `dir/name` as one word, for a file a command puts inside a folder. */
export function childWord(dir: ShellWord, name: ShellWord): ShellWord {
  return { value: `${dir.value}/${name.value}`, raw: `${dir.raw}/${name.raw}`, dynamic: dir.dynamic || name.dynamic };
}

/** The last part of a path, as a word (`cp src/a.ts out/` writes `out/a.ts`). */
export function baseWord(word: ShellWord): ShellWord {
  return { value: path.posix.basename(word.value), raw: path.posix.basename(word.raw), dynamic: word.dynamic };
}

function joinWords(start: ShellWord, suffix: string): ShellWord {
  return { value: start.value + suffix, raw: start.raw + suffix, dynamic: start.dynamic };
}
