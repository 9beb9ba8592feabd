/**
 * The field names and JSON types of hook inputs, by event (`PostToolUse[Bash]` for a tool's
 * events), nested objects by dotted path one level into tool_input and tool_response: the data the
 * side-by-side check records and `npm test` compares orca against.
 */
export type FieldTable = Record<string, Record<string, string>>;

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

export function eventKey(input: Record<string, unknown>): string {
  const event = String(input.hook_event_name);
  return typeof input.tool_name === 'string' ? `${event}[${input.tool_name}]` : event;
}

export function fieldTable(inputs: Record<string, unknown>[]): FieldTable {
  const table: FieldTable = {};
  for (const input of inputs) {
    const fields = (table[eventKey(input)] ??= {});
    for (const [key, value] of Object.entries(input)) {
      fields[key] = typeOf(value);
      if (typeOf(value) === 'object')
        for (const [inner, innerValue] of Object.entries(value as Record<string, unknown>)) fields[`${key}.${inner}`] = typeOf(innerValue);
    }
  }
  return table;
}

export function describeFields(cc: FieldTable, orca: FieldTable): string[] {
  const missing: string[] = [];
  for (const [event, fields] of Object.entries(cc)) {
    if (!orca[event]) continue;
    for (const field of Object.keys(fields)) if (!(field in orca[event]!)) missing.push(`${event} ${field}`);
  }
  return missing.length === 0
    ? ['No field Claude Code sends is missing from orca for the events both fire.']
    : ['Fields Claude Code sends that orca does not, for events both fire:', '', ...missing.map((entry) => `- ${entry}`)];
}
