import { z } from 'zod';
import { SandboxKindSchema } from '../../core/runtime/sandboxMode.js';

/**
 * The one worker-side event that is not an agent event: the worker has prepared the task's
 * workspace (workers/runAgentJob.ts). It says where the task works and on which ports; `host` and
 * `pid` name the worker process when the worker sends them.
 */
export const WorkspaceEventSchema = z.object({
  type: z.literal('workspace'),
  at: z.number(),
  kind: z.enum(['branch', 'scratch', 'view']),
  dir: z.string(),
  branch: z.string().nullable().optional(),
  start: z.string(),
  ports: z.array(z.number().int()),
  host: z.string().optional(),
  pid: z.number().int().optional(),
  /** Which of the worker's concurrent agent slots runs it (0-based): the board's timeline draws a lane per slot. */
  slot: z.number().int().nonnegative().optional(),
  /** What the task's commands run in on that worker (`bwrap`, or `none`: unsandboxed). */
  sandbox: SandboxKindSchema.optional(),
  /** The agent that runs it: `orca`, or an ACP agent's name (docs/agents.md). */
  agent: z.string().optional(),
  /** The worktree came ready from the run's pool (git/worktreePool.ts) instead of a new `git worktree add`. */
  pooled: z.boolean().optional(),
});
export type WorkspaceEvent = z.infer<typeof WorkspaceEventSchema>;
