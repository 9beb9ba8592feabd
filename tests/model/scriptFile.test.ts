import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ModelError } from '../../shared/core/model/modelError.js';
import { loadScriptFile, parseScript } from '../../shared/core/model/scriptFile.js';
import { tempDir } from '../support/tempDir.js';

/** The example from docs/scripted-model.md, verbatim. */
const DOCS_EXAMPLE = `{ "latency_ms": 0,
  "agents": [
    { "when": { "role": "worker", "task": "t1" },
      "turns": [
        { "tools": [ { "name": "Read", "input": { "file_path": "src/a.ts" } } ] },
        { "tools": [ { "name": "Edit", "input": { "file_path": "src/a.ts", "old_string": "x", "new_string": "y" } },
                     { "name": "Bash", "input": { "command": "npm test" } } ] },
        { "text": "done", "tools": [ { "name": "Report", "input": { "summary": "…", "unresolved": [], "claimed_checks": [] } } ] } ] } ] }`;

function writeScript(text: string): string {
  const file = path.join(tempDir(), 'script.json');
  writeFileSync(file, text);
  return file;
}

async function loadError(file: string): Promise<ModelError> {
  const error = await loadScriptFile(file).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ModelError);
  const modelError = error as ModelError;
  expect(modelError.kind).toBe('script');
  expect(modelError.message).not.toContain('\n');
  return modelError;
}

function parseError(json: string | object): ModelError {
  try {
    parseScript(json, 'script x.json');
  } catch (error) {
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).message).not.toContain('\n');
    return error as ModelError;
  }
  throw new Error('expected parseScript to fail');
}

describe('loadScriptFile', () => {
  it('loads the example from docs/scripted-model.md and remembers where it came from', async () => {
    const file = writeScript(DOCS_EXAMPLE);
    const script = await loadScriptFile(file);
    expect(script.source).toBe(`script file ${file}`);
    expect(script.latency_ms).toBe(0);
    expect(script.agents).toHaveLength(1);
    expect(script.agents[0]!.when).toEqual({ role: 'worker', task: 't1' });
    expect(script.agents[0]!.turns.map((turn) => turn.tools?.map((tool) => tool.name))).toEqual([['Read'], ['Edit', 'Bash'], ['Report']]);
    expect(script.agents[0]!.turns[2]!.text).toBe('done');
  });

  it('accepts a file saved with a byte-order mark', async () => {
    const script = await loadScriptFile(writeScript(`\uFEFF${DOCS_EXAMPLE}`));
    expect(script.agents).toHaveLength(1);
  });

  it('names a missing file and says to check the path', async () => {
    const file = path.join(tempDir(), 'nope.json');
    const error = await loadError(file);
    expect(error.message).toBe(`script file ${file} does not exist: check the --script path`);
  });

  it('refuses a directory', async () => {
    const dir = path.join(tempDir(), 'scripts');
    mkdirSync(dir);
    const error = await loadError(dir);
    expect(error.message).toContain(`script file ${dir} is a directory`);
  });

  it('places a trailing comma (no position from JSON.parse on Node 20) at its line and column', async () => {
    const file = writeScript('{ "agents": [\n  { "when": { "role": "worker" },\n    "turns": [ { "text": "a" }, ] } ] }');
    const error = await loadError(file);
    expect(error.message).toBe(`script file ${file} is not valid JSON: line 3, column 33: Unexpected token ']'`);
  });

  it('places a missing comma between fields at its line and column', async () => {
    const file = writeScript('{\n  "latency_ms": 5\n  "agents": []\n}');
    const error = await loadError(file);
    expect(error.message).toMatch(/^script file .*script\.json is not valid JSON: line 3, column 3: /);
  });

  it('places a cut-off file at its end', async () => {
    const file = writeScript('{ "agents": [\n');
    const error = await loadError(file);
    expect(error.message).toContain('is not valid JSON: line 2, column 1: ');
  });

  it('names the field of a schema problem', async () => {
    const file = writeScript(JSON.stringify({ agents: [{ when: { task: 't1' }, turns: [] }] }));
    const error = await loadError(file);
    expect(error.message).toMatch(/^script file .* is invalid: agents\[0\]\.when\.role: /);
  });
});

describe('parseScript', () => {
  it('accepts an object built in code', () => {
    const script = parseScript({ agents: [{ when: { role: 'explore' }, turns: [{ text: 'hi' }] }] }, 'inline script');
    expect(script).toEqual({ source: 'inline script', agents: [{ when: { role: 'explore' }, turns: [{ text: 'hi' }] }] });
  });

  it('names a misspelt key instead of ignoring it', () => {
    const error = parseError({ lantecy_ms: 5, agents: [{ when: { role: 'worker' }, turns: [] }] });
    expect(error.message).toContain('script x.json is invalid');
    expect(error.message).toContain('lantecy_ms');
  });

  it('names a negative latency on a turn by its path', () => {
    const error = parseError({ agents: [{ when: { role: 'worker' }, turns: [{ text: 'a' }, { text: 'b', latency_ms: -1 }] }] });
    expect(error.message).toMatch(/agents\[0\]\.turns\[1\]\.latency_ms: /);
  });

  it('refuses a turn with neither text nor tools', () => {
    const error = parseError({ agents: [{ when: { role: 'worker' }, turns: [{}] }] });
    expect(error.message).toContain('agents[0].turns[0]: a turn needs text or at least one tool call');
  });

  it('refuses a tool input that is not an object', () => {
    const error = parseError({ agents: [{ when: { role: 'worker' }, turns: [{ tools: [{ name: 'Bash', input: 'ls' }] }] }] });
    expect(error.message).toMatch(/agents\[0\]\.turns\[0\]\.tools\[0\]\.input: /);
  });

  it('refuses a script with no agents', () => {
    expect(parseError({ agents: [] }).message).toContain('agents: a script needs at least one agent');
  });

  it('uses the position JSON.parse gives, as a line and column', () => {
    const broken = ['{"a": "x\ny"}', '{\n "a": 01}', '{"a": 1.}', '{"a":\n "\\q"}', '"abc', '{"a": 1}}', '{\n\n  "a": 1,\n  b: 2\n}'];
    for (const text of broken) {
      let position = -1;
      try {
        JSON.parse(text);
      } catch (error) {
        position = Number(/at position (\d+)/.exec((error as Error).message)?.[1]);
      }
      expect(position, text).toBeGreaterThanOrEqual(0);
      const before = text.slice(0, position).split('\n');
      const expected = `line ${before.length}, column ${before.at(-1)!.length + 1}: `;
      expect(parseError(text).message, text).toContain(expected);
    }
  });

  it('finds the unexpected token JSON.parse gives no position for', () => {
    expect(parseError('{"a":\n   }').message).toBe("script x.json is not valid JSON: line 2, column 4: Unexpected token '}'");
    expect(parseError('{"a": tru}').message).toContain("line 1, column 10: Unexpected token '}'");
    expect(parseError('{"a": [1, "b\\"",]}').message).toContain('line 1, column 17: ');
    expect(parseError('{"a": "\\u00e9", "b": x}').message).toContain("line 1, column 22: Unexpected token 'x'");
  });
});
