import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentEventInput } from '../../shared/core/events/agentEvent.js';
import type { PermissionMode } from '../../shared/core/tool/permissionMode.js';
import type { HookContext } from '../../shared/policy/hooks/hookContext.js';
import { type HooksConfig, parseHooksConfig } from '../../shared/policy/hooks/hooksConfig.js';
import { tempDir } from '../support/tempDir.js';

/** Shared set-up for the hook tests: real hook scripts in tests/fixtures/hooks, a context that records events. */

export const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/hooks');

export function fixture(name: string): string {
  return path.join(FIXTURES, name);
}

export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** A command line running the `respond.mjs` node hook with this spec (written into `dir`). */
export function respondHook(dir: string, spec: Record<string, unknown>): string {
  const specFile = path.join(dir, `spec-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(specFile, JSON.stringify(spec));
  return `node ${shellQuote(fixture('respond.mjs'))} ${shellQuote(specFile)}`;
}

/** A command line running `exit-with.sh`: exits `code`, with `stderr` and `stdout`. */
export function exitHook(code: number, stderr = '', stdout = ''): string {
  return `bash ${shellQuote(fixture('exit-with.sh'))} ${code} ${shellQuote(stderr)} ${shellQuote(stdout)}`;
}

/** The lines `respond.mjs` recorded: what each run read on stdin, its env and cwd. */
export function recorded(file: string): { input: Record<string, unknown>; env: Record<string, string | null>; cwd: string }[] {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

export function hooksOf(settings: Record<string, unknown>): HooksConfig {
  return parseHooksConfig(settings, 'test settings');
}

export function testHookContext(
  options: { projectDir?: string; env?: Record<string, string>; signal?: AbortSignal; mode?: PermissionMode; role?: string } = {},
): HookContext & { events: AgentEventInput[] } {
  const projectDir = options.projectDir ?? tempDir('orca-hooks-project-');
  const events: AgentEventInput[] = [];
  return {
    projectDir,
    cwd: projectDir,
    sessionId: 'session-1',
    transcriptPath: path.join(projectDir, 'transcript.jsonl'),
    mode: options.mode ?? 'workspace-write',
    role: options.role ?? 'worker',
    env: options.env ?? {},
    signal: options.signal ?? new AbortController().signal,
    emit: (event) => events.push(event),
    events,
  };
}

/** The `hook` events recorded, in a shape easy to compare. */
export function hookEvents(events: AgentEventInput[]) {
  return events.flatMap((event) => (event.type === 'hook' ? [event] : []));
}
