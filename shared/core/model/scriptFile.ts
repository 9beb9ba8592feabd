import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { describeZodError } from '../boundary/zodIssues.js';
import { ModelError } from './modelError.js';

/**
 * The Scripted model's file (`--script FILE`), exactly as docs/scripted-model.md gives it. Objects
 * are strict so a misspelt key (`lantecy_ms`) is an error naming it, not a setting silently ignored.
 */

const LatencySchema = z.number().int().nonnegative();

export const ScriptToolCallSchema = z.strictObject({
  name: z.string().min(1),
  // Tool inputs are JSON objects in the Messages API; the tool's own schema checks the fields.
  input: z.record(z.string(), z.unknown()),
});

export const ScriptTurnSchema = z
  .strictObject({
    /** The turn's thinking, sent first as a signed thinking block (as a thinking model's answer would be). */
    thinking: z.string().optional(),
    text: z.string().optional(),
    tools: z.array(ScriptToolCallSchema).optional(),
    latency_ms: LatencySchema.optional(),
  })
  .refine((turn) => (turn.text ?? '') !== '' || (turn.tools ?? []).length > 0, {
    message: 'a turn needs text or at least one tool call',
  });

export const ScriptWhenSchema = z.strictObject({
  role: z.string().min(1),
  /** A plan subtask id. */
  task: z.string().min(1).optional(),
  /** A substring of the agent's task prompt. */
  prompt_includes: z.string().min(1).optional(),
});

export const ScriptAgentSchema = z.strictObject({
  when: ScriptWhenSchema,
  turns: z.array(ScriptTurnSchema),
});

export const ScriptFileSchema = z.strictObject({
  latency_ms: LatencySchema.optional(),
  agents: z.array(ScriptAgentSchema).min(1, 'a script needs at least one agent'),
});

export type ScriptToolCall = z.infer<typeof ScriptToolCallSchema>;
export type ScriptTurn = z.infer<typeof ScriptTurnSchema>;
export type ScriptWhen = z.infer<typeof ScriptWhenSchema>;
export type ScriptAgent = z.infer<typeof ScriptAgentSchema>;
export type ScriptFile = z.infer<typeof ScriptFileSchema>;

/** A checked script and where it came from, so later errors can name the file. */
export type Script = ScriptFile & { source: string };

/** Reads and checks a script file; fails with one line naming the file and what to fix. */
export async function loadScriptFile(filePath: string): Promise<Script> {
  let text: string;
  try {
    text = await readFile(filePath, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw new ModelError('script', `script file ${filePath} does not exist: check the --script path`, undefined, { cause: error });
    }
    if (code === 'EISDIR') {
      throw new ModelError('script', `script file ${filePath} is a directory: pass the path of a JSON file`, undefined, { cause: error });
    }
    const detail = error instanceof Error ? error.message : String(error);
    throw new ModelError('script', `script file ${filePath} could not be read: ${detail}`, undefined, { cause: error });
  }
  // Editors on Windows may save a byte-order mark, which JSON.parse refuses.
  return parseScript(text.replace(/^\uFEFF/, ''), `script file ${filePath}`);
}

/**
 * Checks a script given as JSON text (or as an already-parsed value, for scripts built in
 * code). `sourceName` is how errors name it, e.g. `script file x.json`.
 */
export function parseScript(json: string | object, sourceName: string): Script {
  let value: unknown = json;
  if (typeof json === 'string') {
    try {
      value = JSON.parse(json);
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      throw new ModelError('script', `${sourceName} is not valid JSON: ${describeJsonSyntaxError(json, detail)}`, undefined, {
        cause: error,
      });
    }
  }
  const parsed = ScriptFileSchema.safeParse(value);
  if (!parsed.success) throw new ModelError('script', describeZodError(parsed.error, sourceName));
  return { ...parsed.data, source: sourceName };
}

/** V8's reason without its offset or source excerpt, placed at a line and column. */
function describeJsonSyntaxError(text: string, v8Message: string): string {
  const reason = v8Message.replace(/ in JSON at position \d+[\s\S]*$/, '').replace(/, (?:\.\.\.)?"[\s\S]*$/, '');
  const given = / in JSON at position (\d+)/.exec(v8Message)?.[1];
  const offset = given === undefined ? firstJsonSyntaxErrorOffset(text) : Number(given);
  if (offset === undefined) return reason;
  const before = text.slice(0, offset).split(/\r\n|\r|\n/);
  const line = before.length;
  const column = before[before.length - 1]!.length + 1;
  return `line ${line}, column ${column}: ${reason}`;
}

/**
 * Where the first syntax error in `text` is, by a strict scan of the JSON grammar. Needed because
 * Node 20's JSON.parse gives no position for its most common error (an unexpected token such as
 * a trailing comma in an array); where it does give one, that one is used. Returns undefined
 * when the scan finds nothing wrong.
 */
function firstJsonSyntaxErrorOffset(text: string): number | undefined {
  let at = 0;
  const fail = (): never => {
    throw new JsonSyntaxAt(at);
  };
  const skipSpace = (): void => {
    while (at < text.length && ' \t\n\r'.includes(text[at]!)) at += 1;
  };
  const matchAt = (pattern: RegExp): string => {
    pattern.lastIndex = at;
    return pattern.exec(text)?.[0] ?? '';
  };
  const literal = (word: string): void => {
    for (const char of word) {
      if (text[at] !== char) fail();
      at += 1;
    }
  };
  const string = (): void => {
    at += 1;
    at += matchAt(/(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*/y).length;
    if (text[at] !== '"') fail();
    at += 1;
  };
  const number = (): void => {
    const digits = matchAt(/-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y);
    if (digits === '') fail();
    at += digits.length;
  };
  const value = (): void => {
    skipSpace();
    const char = text[at];
    if (char === '{') {
      at += 1;
      skipSpace();
      if (text[at] === '}') return void (at += 1);
      for (;;) {
        skipSpace();
        if (text[at] !== '"') fail();
        string();
        skipSpace();
        if (text[at] !== ':') fail();
        at += 1;
        value();
        skipSpace();
        if (text[at] === '}') return void (at += 1);
        if (text[at] !== ',') fail();
        at += 1;
      }
    }
    if (char === '[') {
      at += 1;
      skipSpace();
      if (text[at] === ']') return void (at += 1);
      for (;;) {
        value();
        skipSpace();
        if (text[at] === ']') return void (at += 1);
        if (text[at] !== ',') fail();
        at += 1;
      }
    }
    if (char === '"') return string();
    if (char === 't') return literal('true');
    if (char === 'f') return literal('false');
    if (char === 'n') return literal('null');
    return number();
  };
  try {
    value();
    skipSpace();
    return at < text.length ? at : undefined;
  } catch (error) {
    if (error instanceof JsonSyntaxAt) return error.offset;
    throw error;
  }
}

class JsonSyntaxAt {
  constructor(readonly offset: number) {}
}
