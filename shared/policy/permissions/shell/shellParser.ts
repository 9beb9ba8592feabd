import { createRequire } from 'node:module';
import type bashParser from '@ericcornelissen/bash-parser';

export type ShellNode = bashParser.Node;

let parser: typeof bashParser | undefined;

/**
 * A command as @ericcornelissen/bash-parser reads it (bash mode, with locations). The parser is
 * loaded on the first command, not with this module: it is the largest thing the shell analysis
 * loads, and most processes that import the analysis (the CLI, reading every tool's definition for
 * its facts) never parse a command.
 */
export function parseShellCommand(source: string): ShellNode {
  parser ??= createRequire(import.meta.url)('@ericcornelissen/bash-parser') as typeof bashParser;
  return parser(source, { mode: 'bash', insertLOC: true });
}
