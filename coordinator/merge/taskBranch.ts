import type { AgentJobResult } from '../../shared/infra/queue/agentJob.js';

/**
 * What a merge takes of a task's finished job: its branch, the commit at its tip, and the base it
 * started from (its whole change, base..commit, is what the merge check looks at). A job that
 * changed no files has neither branch nor commit.
 */
export type TaskBranch = Pick<AgentJobResult, 'base' | 'branch' | 'commit'>;
