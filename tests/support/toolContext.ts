import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { AgentEventInput } from '../../shared/core/events/agentEvent.js';
import { ReadFileState } from '../../shared/core/files/readFileState.js';
import { Workspace } from '../../shared/core/files/workspace.js';
import type { PermissionMode } from '../../shared/core/tool/permissionMode.js';
import type { ToolContext } from '../../shared/core/tool/tool.js';
import { tempDir } from './tempDir.js';

/** A ToolContext rooted in `root` (a fresh temp folder by default), recording what it emits. */
export function makeToolContext(
  options: { root?: string; mode?: PermissionMode; signal?: AbortSignal; fileState?: ReadFileState } = {},
): ToolContext & { events: AgentEventInput[] } {
  const root = options.root ?? tempDir('orca-ws-');
  const sessionDir = path.join(tempDir('orca-session-'), 'session');
  mkdirSync(sessionDir, { recursive: true });
  const events: AgentEventInput[] = [];
  return {
    workspace: new Workspace(root, { extraReadRoots: [sessionDir] }),
    fileState: options.fileState ?? new ReadFileState(),
    signal: options.signal ?? new AbortController().signal,
    session: { id: 'test-session', role: 'worker', dir: sessionDir },
    shell: { env: {}, defaultTimeoutMs: 120_000, maxTimeoutMs: 600_000 },
    mode: options.mode ?? 'full-access',
    emit: (event) => events.push(event),
    services: {},
    events,
  };
}
