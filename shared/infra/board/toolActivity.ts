/** The most telling input of a tool call, by the fields Claude Code's tools use. */
const MAIN_INPUT = ['command', 'file_path', 'pattern', 'skill', 'path'] as const;
const LONGEST = 120;

/**
 * What a task is doing while a tool runs, in one short line: `Bash npm test`, `Edit src/a.ts`.
 * The board shows it as the task's current activity.
 */
export function describeToolCall(name: string, input: unknown): string {
  let main = '';
  if (input && typeof input === 'object') {
    const record = input as Record<string, unknown>;
    const field = MAIN_INPUT.find((key) => typeof record[key] === 'string');
    if (field) main = (record[field] as string).split('\n', 1)[0] ?? '';
  }
  const line = main ? `${name} ${main}` : name;
  return line.length > LONGEST ? `${line.slice(0, LONGEST - 1)}…` : line;
}
