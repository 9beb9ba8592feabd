import { beforeAll, describe, expect, it } from 'vitest';
import { ToolError } from '../../shared/core/boundary/toolError.js';
import { type GrepInput, makeGrepTool } from '../../shared/tools/grep.js';
import { makeToolContext } from '../support/toolContext.js';
import { ensureBuilt, makeSearchFixture } from './searchFixture.js';

const rgTool = makeGrepTool({ engine: 'rg' });
const jsTool = makeGrepTool({ engine: 'js' });

/** Queries covering every option, alone and combined; both engines must answer each identically. */
const QUERIES: GrepInput[] = [
  { pattern: 'handler' },
  { pattern: 'handler', output_mode: 'content' },
  { pattern: 'handler', output_mode: 'count' },
  { pattern: 'HANDLER', '-i': true, output_mode: 'content' },
  { pattern: 'handler', output_mode: 'content', '-n': false },
  { pattern: 'match', path: 'multi/context.txt', output_mode: 'content', '-C': 1 },
  { pattern: 'match', path: 'multi', output_mode: 'content', '-A': 2 },
  { pattern: 'match', path: 'multi', output_mode: 'content', '-B': 3, '-n': false },
  { pattern: 'match', path: 'multi', output_mode: 'content', '-C': 5, '-A': 0 },
  { pattern: 'handler', glob: '*.ts' },
  { pattern: 'handler', glob: '**/*.{ts,tsx}', output_mode: 'count' },
  { pattern: 'handler', glob: 'src/*.ts,*.py' },
  { pattern: 'handler', glob: '!*.ts' },
  { pattern: 'handler', glob: '*.log', output_mode: 'count' },
  { pattern: 'handler', glob: 'dist', output_mode: 'count' },
  { pattern: 'handler', type: 'ts' },
  { pattern: 'handler', type: 'py', output_mode: 'content' },
  { pattern: 'handler', type: 'js', glob: '*.md' },
  { pattern: 'handler', type: 'md', output_mode: 'count' },
  { pattern: 'handler', head_limit: 3 },
  { pattern: 'handler', output_mode: 'content', head_limit: 4 },
  { pattern: 'match', path: 'multi', output_mode: 'content', '-C': 1, head_limit: 4 },
  { pattern: 'e', output_mode: 'count', head_limit: 2 },
  { pattern: 'struct \\w+ \\{.*?handler', multiline: true, output_mode: 'content' },
  { pattern: 'struct \\w+ \\{.*?handler', multiline: true, output_mode: 'count' },
  { pattern: '\\{\\n\\s+\\w+', multiline: true, output_mode: 'count' },
  { pattern: 'x: i32,\\n\\}', multiline: true, output_mode: 'content', '-B': 1 },
  { pattern: 'handler', multiline: true, output_mode: 'count' },
  { pattern: 'handler$', output_mode: 'content' },
  { pattern: '^handler', output_mode: 'content' },
  { pattern: 'handler', path: 'src', output_mode: 'content' },
  { pattern: 'handler', path: 'src/nested/generated.ts', output_mode: 'content' },
  { pattern: 'handler', path: 'dist' },
  { pattern: 'handler', path: 'build', output_mode: 'content' },
  { pattern: 'handler', path: 'notes', output_mode: 'content' },
  { pattern: 'colon', output_mode: 'content', '-C': 1 },
  { pattern: 'no such text anywhere' },
  { pattern: 'handler', type: 'nosuchtype' },
  { pattern: '-request' },
  { pattern: '[' },
];

describe('rg and the JS fallback agree', () => {
  beforeAll(ensureBuilt);

  it('gives the same output for every query on the fixture repo', async () => {
    const ctx = makeToolContext({ root: makeSearchFixture() });
    const answer = async (tool: typeof rgTool, input: GrepInput) => {
      try {
        return (await tool.call(input, ctx)).content;
      } catch (error) {
        if (!(error instanceof ToolError)) throw error;
        // The regex engines word their errors differently; being an error is what must agree.
        return error.message.startsWith('The pattern is not a valid regular expression') ? 'invalid regex' : `error: ${error.message}`;
      }
    };
    for (const input of QUERIES) {
      const fromRg = await answer(rgTool, input);
      const fromJs = await answer(jsTool, input);
      expect({ input, output: fromJs }).toEqual({ input, output: fromRg });
    }
  });
});
