import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { ScriptTurn } from '../../shared/core/model/scriptFile.js';
import { readRunEvents } from '../../shared/infra/board/runEvents.js';
import type { Keys } from '../../shared/infra/redis/keys.js';

/** A run id of this test's own (slug-safe). */
export function testRunId(label: string): string {
  return `${label}-${randomBytes(3).toString('hex')}`;
}

/** An agent job whose Scripted model plays `turns` (bench/runScript.ts builds it for tests and benchmarks alike). */
export { scriptedAgentJob as scriptedJob } from '../../bench/runScript.js';

/** The worker role's closing turn. */
export function reportTurn(summary = 'done'): ScriptTurn {
  return { tools: [{ name: 'Report', input: { summary, unresolved: [], claimed_checks: [] } }] };
}

export function toolTurn(name: string, input: Record<string, unknown>): ScriptTurn {
  return { tools: [{ name, input }] };
}

export interface ToolOutcome {
  name: string;
  input: Record<string, unknown>;
  isError: boolean;
  preview: string;
}

/** Every tool call of a task as the run's event stream recorded it, with how it came back. */
export async function toolOutcomes(redis: Redis, keys: Keys, runId: string, taskId: string): Promise<ToolOutcome[]> {
  const events = (await readRunEvents(redis, keys, runId, '0', 100_000))
    .map(({ entry }) => entry)
    .filter((entry) => entry.task_id === taskId);
  const results = new Map<string, { is_error: boolean; preview: string }>();
  for (const { event } of events) {
    if (event.type === 'tool_result') results.set(String(event.id), { is_error: Boolean(event.is_error), preview: String(event.preview) });
  }
  return events
    .map(({ event }) => event)
    .filter((event) => event.type === 'tool_call')
    .map((event) => {
      const result = results.get(String(event.id));
      return {
        name: String(event.name),
        input: event.input as Record<string, unknown>,
        isError: result?.is_error ?? true,
        preview: result?.preview ?? '(no result)',
      };
    });
}
