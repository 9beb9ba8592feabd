import { createRequire } from 'node:module';
import type bashParser from '@ericcornelissen/bash-parser';

export type ShellNode = bashParser.Node;

let parser: typeof bashParser | undefined;

/**
 * One Bash call's command is read by its permission level, its parts (owned paths) and the Bash
 * tool's pipeline stages, each asking for the same source: the parser takes milliseconds a
 * command, so the last few trees are kept. Each is frozen whole, so no reader can change what
 * another one reads.
 */
const KEPT = 32;
const parsed = new Map<string, ShellNode>();

/**
 * A command as @ericcornelissen/bash-parser reads it (bash mode, with locations), frozen. The
 * parser is loaded on the first command, not with this module: it is the largest thing the shell
 * analysis loads, and most processes that import the analysis (the CLI, reading every tool's
 * definition for its facts) never parse a command. A source the parser refuses throws each time.
 */
export function parseShellCommand(source: string): ShellNode {
  const kept = parsed.get(source);
  if (kept) {
    // Most recently used last: the oldest is the first key.
    parsed.delete(source);
    parsed.set(source, kept);
    return kept;
  }
  const tree = deepFreeze(loadShellParser()(source, { mode: 'bash', insertLOC: true }));
  parsed.set(source, tree);
  if (parsed.size > KEPT) parsed.delete(parsed.keys().next().value as string);
  return tree;
}

/**
 * The parser, loaded now if it is not yet: a worker loads it while it waits for its first job
 * (workers/idleWarmup.ts), so its first Bash call does not.
 */
export function loadShellParser(): typeof bashParser {
  parser ??= createRequire(import.meta.url)('@ericcornelissen/bash-parser') as typeof bashParser;
  return parser;
}

function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
  return value;
}
