import { existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { readRunEvents } from '../../shared/infra/board/runEvents.js';
import type { Keys } from '../../shared/infra/redis/keys.js';

/**
 * A PATH like this process's where `program` cannot be found: each folder that holds it is
 * replaced by a folder of links to everything else in it (bwrap lives in /usr/bin, beside git
 * and node, so the folder cannot simply be dropped).
 */
export function pathWithout(program: string, scratch: string, PATH = process.env.PATH ?? ''): string {
  return PATH.split(path.delimiter)
    .filter(Boolean)
    .map((dir, index) => {
      if (!existsSync(path.join(dir, program))) return dir;
      const mirror = path.join(scratch, `path-${index}`);
      mkdirSync(mirror, { recursive: true });
      for (const name of readdirSync(dir)) if (name !== program) symlinkSync(path.join(dir, name), path.join(mirror, name));
      return mirror;
    })
    .join(path.delimiter);
}

/** One tool call of a task, with how it came back and the notices the host gave while it ran. */
export interface CallRecord {
  name: string;
  input: Record<string, unknown>;
  isError: boolean;
  preview: string;
  notices: string[];
}

/**
 * The task's tool calls in order, each with the notices emitted between the call and its result
 * (the host's refusals after the call), and the notices given before a Report was accepted.
 */
export async function callRecords(
  redis: Redis,
  keys: Keys,
  runId: string,
  taskId: string,
): Promise<{ calls: CallRecord[]; notices: string[] }> {
  const events = (await readRunEvents(redis, keys, runId, '0', 100_000))
    .map(({ entry }) => entry)
    .filter((entry) => entry.task_id === taskId);
  const calls: CallRecord[] = [];
  const byId = new Map<string, CallRecord>();
  const notices: string[] = [];
  let current: CallRecord | undefined;
  for (const { event } of events) {
    if (event.type === 'tool_call') {
      current = {
        name: String(event.name),
        input: event.input as Record<string, unknown>,
        isError: true,
        preview: '(no result)',
        notices: [],
      };
      calls.push(current);
      byId.set(String(event.id), current);
    } else if (event.type === 'tool_result') {
      const call = byId.get(String(event.id));
      if (call) Object.assign(call, { isError: Boolean(event.is_error), preview: String(event.preview) });
      current = undefined;
    } else if (event.type === 'notice') {
      const message = String(event.message);
      notices.push(message);
      current?.notices.push(message);
    }
  }
  return { calls, notices };
}

/**
 * A scripted run of the red-team tests: a coordinator that asks nothing, a planner that cuts the
 * given subtasks, then the agents that play them (workers, verification).
 */
export function plannedRun(subtasks: Record<string, unknown>[], agents: Record<string, unknown>[]) {
  return {
    latency_ms: 0,
    agents: [
      { when: { role: 'coordinator' }, turns: [{ tools: [{ name: 'Report', input: { questions: [] } }] }] },
      { when: { role: 'plan' }, turns: [{ tools: [{ name: 'Report', input: { subtasks, risks: [] } }] }] },
      ...agents,
    ],
  };
}
