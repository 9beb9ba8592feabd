import type { ShellWord } from './shellTypes.js';
import { mayBecomeOption } from './wordShape.js';

/**
 * Reads a command's arguments the way GNU getopt does, so the write checks find the operands and
 * option values the command itself will see: short clusters (`-rt DIR`, `-tDIR`), long options
 * and their unique abbreviations (`--target=DIR`), `--`, options after operands. Each command's
 * options are listed exactly: one we do not know might take a value and shift the operands, so it
 * makes the reading fail rather than guess.
 */
export type OptionArity = 'none' | 'required' | 'optional';

export interface OptionSpec {
  /** Short options without a value, as letters. */
  flags?: string;
  /** Short options with a value, fused (`-tDIR`) or in the next word. */
  valued?: string;
  /** Short options whose value, if any, is the rest of the word (`sed -i.bak`). */
  fusedOptional?: string;
  /** Long options, without their dashes. */
  long?: Record<string, OptionArity>;
  /** Words that start with `-` and are operands all the same (chmod's `-x`). */
  operandLike?: RegExp;
  /** An option can send the writes elsewhere (`-t DIR`): a word that may expand into an option makes the reading fail. */
  redirecting?: boolean;
  /** Options end at the first operand (perl, git before its subcommand). */
  stopAtOperand?: boolean;
}

export interface ReadOption {
  /** `-t` or `--target-directory`: the full name, whatever abbreviation was written. */
  name: string;
  value?: ShellWord;
}

export type ReadArguments = { ok: true; options: ReadOption[]; operands: ShellWord[] } | { ok: false; reason: string };

export function readArguments(args: ShellWord[], spec: OptionSpec): ReadArguments {
  const options: ReadOption[] = [];
  const operands: ShellWord[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const word = args[index]!;
    const value = word.value;
    if (value === '--') {
      operands.push(...args.slice(index + 1));
      break;
    }
    const isOption = value.startsWith('-') && value !== '-' && !spec.operandLike?.test(value);
    if (!isOption) {
      if (spec.redirecting && mayBecomeOption(word)) {
        return {
          ok: false,
          reason: `${word.raw} could expand to something starting with - and be read as an option; put -- before the operands or start the path with ./`,
        };
      }
      if (spec.stopAtOperand) {
        operands.push(...args.slice(index));
        break;
      }
      operands.push(word);
      continue;
    }
    const read = value.startsWith('--') ? readLong(args, index, spec) : readShort(args, index, spec);
    if ('reason' in read) return { ok: false, reason: read.reason };
    options.push(...read.options);
    index += read.consumed - 1;
  }
  return { ok: true, options, operands };
}

type Read = { options: ReadOption[]; consumed: number } | { reason: string };

function readLong(args: ShellWord[], index: number, spec: OptionSpec): Read {
  const word = args[index]!;
  const equals = word.value.indexOf('=');
  const written = word.value.slice(2, equals === -1 ? undefined : equals);
  if (word.dynamic && /[$`]/.test(written)) return { reason: `its option ${word.raw} is only known when it runs` };
  const long = spec.long ?? {};
  const name = Object.hasOwn(long, written) ? written : uniquePrefix(written, Object.keys(long));
  if (name === undefined) return { reason: `it has an option we do not know (--${written})` };
  const arity = long[name]!;
  const option = `--${name}`;
  if (equals !== -1) {
    if (arity === 'none') return { reason: `its option --${name} takes no value` };
    return { options: [{ name: option, value: fused(word, word.value.slice(equals + 1)) }], consumed: 1 };
  }
  if (arity !== 'required') return { options: [{ name: option }], consumed: 1 };
  const next = args[index + 1];
  if (!next) return { reason: `its option --${name} is missing its value` };
  return { options: [{ name: option, value: next }], consumed: 2 };
}

function readShort(args: ShellWord[], index: number, spec: OptionSpec): Read {
  const word = args[index]!;
  const letters = [...word.value.slice(1)];
  const options: ReadOption[] = [];
  for (let at = 0; at < letters.length; at += 1) {
    const letter = letters[at]!;
    const rest = letters.slice(at + 1).join('');
    if (word.dynamic && (letter === '$' || letter === '`')) return { reason: `its option ${word.raw} is only known when it runs` };
    if (spec.flags?.includes(letter)) {
      options.push({ name: `-${letter}` });
    } else if (spec.fusedOptional?.includes(letter)) {
      options.push(rest === '' ? { name: `-${letter}` } : { name: `-${letter}`, value: fused(word, rest) });
      return { options, consumed: 1 };
    } else if (spec.valued?.includes(letter)) {
      if (rest !== '') {
        options.push({ name: `-${letter}`, value: fused(word, rest) });
        return { options, consumed: 1 };
      }
      const next = args[index + 1];
      if (!next) return { reason: `its option -${letter} is missing its value` };
      options.push({ name: `-${letter}`, value: next });
      return { options, consumed: 2 };
    } else {
      return { reason: `it has an option we do not know (-${letter} in ${word.value})` };
    }
  }
  return { options, consumed: 1 };
}

/** getopt takes an abbreviation that names exactly one long option. */
function uniquePrefix(written: string, names: string[]): string | undefined {
  if (written === '') return undefined;
  const matches = names.filter((name) => name.startsWith(written));
  return matches.length === 1 ? matches[0] : undefined;
}

/** The value part of a word (`DIR` of `-tDIR` or `--target-directory=DIR`), as a word of its own. */
function fused(word: ShellWord, value: string): ShellWord {
  return { value, raw: value, dynamic: word.dynamic };
}

/** The values given to any of `names`, in order. */
export function valuesOf(options: ReadOption[], ...names: string[]): ShellWord[] {
  return options.filter((option) => names.includes(option.name) && option.value).map((option) => option.value!);
}

export function hasOption(options: ReadOption[], ...names: string[]): boolean {
  return options.some((option) => names.includes(option.name));
}
