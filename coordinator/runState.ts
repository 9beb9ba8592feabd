import type { RunEvent, RunPhase, RunStatus, TaskStatus } from '../shared/core/events/runEvent.js';
import { addUsage, emptyUsage, type Usage } from '../shared/core/model/usage.js';

export interface TaskRecord {
  id: string;
  role: string;
  title: string;
  depends_on: string[];
  paths: string[];
  checks: string[];
  status: TaskStatus;
  attempt: number;
  jobId?: string;
  branch?: string;
  commit?: string;
  mergeCommit?: string;
  /** The job whose result is recorded (so a resumed run never counts one twice). */
  resultJobId?: string;
  detail?: string;
  usage: Usage;
  costUsd: number;
}

/**
 * A run as its events describe it. The coordinator keeps this by applying each event it records,
 * and `orca resume` rebuilds it from the run's stream: the events are the run's only memory.
 */
export interface RunState {
  runId: string;
  task: string;
  repo: string;
  base: string;
  integrationBranch: string;
  model: string;
  scripted: boolean;
  checks: string[];
  settings?: Extract<RunEvent, { type: 'run_created' }>['settings'];
  phase?: RunPhase;
  findings?: Extract<RunEvent, { type: 'findings' }>;
  plan?: Extract<RunEvent, { type: 'plan' }>;
  approved?: boolean;
  tasks: Map<string, TaskRecord>;
  /** Task ids in the order their tasks were created. */
  order: string[];
  integrationHead?: string;
  /** When the last merge into the integration branch was recorded (ms). */
  lastMergeAt: number;
  status?: RunStatus;
  ended: boolean;
  usage: Usage;
  costUsd: number;
}

export function emptyRunState(runId: string): RunState {
  return {
    runId,
    task: '',
    repo: '',
    base: '',
    integrationBranch: '',
    model: '',
    scripted: false,
    checks: [],
    tasks: new Map(),
    order: [],
    ended: false,
    lastMergeAt: 0,
    usage: emptyUsage(),
    costUsd: 0,
  };
}

export function applyRunEvent(state: RunState, event: RunEvent): void {
  switch (event.type) {
    case 'run_created':
      Object.assign(state, {
        task: event.task,
        repo: event.repo,
        base: event.base,
        integrationBranch: event.integration_branch,
        model: event.model,
        scripted: event.scripted,
        checks: event.checks,
        settings: event.settings,
        integrationHead: event.base,
      });
      return;
    case 'run_phase':
      state.phase = event.phase;
      return;
    case 'findings':
      state.findings = event;
      return;
    case 'plan':
      state.plan = event;
      return;
    case 'approval':
      state.approved = event.approved;
      return;
    case 'task_created':
      if (!state.tasks.has(event.task_id)) state.order.push(event.task_id);
      state.tasks.set(event.task_id, {
        id: event.task_id,
        role: event.role,
        title: event.title,
        depends_on: event.depends_on,
        paths: event.paths,
        checks: event.checks,
        status: 'pending',
        attempt: 0,
        usage: emptyUsage(),
        costUsd: 0,
      });
      return;
    case 'task_state': {
      const task = state.tasks.get(event.task_id);
      if (!task) return;
      task.status = event.status;
      task.attempt = event.attempt;
      if (event.job_id) task.jobId = event.job_id;
      if (event.detail !== undefined) task.detail = event.detail;
      return;
    }
    case 'task_result': {
      const task = state.tasks.get(event.task_id);
      state.usage = addUsage(state.usage, event.usage);
      state.costUsd += event.cost_usd;
      if (!task) return;
      task.usage = addUsage(task.usage, event.usage);
      task.costUsd += event.cost_usd;
      if (event.job_id) task.resultJobId = event.job_id;
      task.branch = event.branch ?? task.branch;
      task.commit = event.commit ?? task.commit;
      task.detail = event.detail;
      return;
    }
    case 'merge': {
      const task = state.tasks.get(event.task_id);
      if ((event.outcome === 'merged' || event.outcome === 'resolved') && event.commit) {
        state.integrationHead = event.commit;
        state.lastMergeAt = event.at;
        if (task) task.mergeCommit = event.commit;
      }
      return;
    }
    case 'verdict':
      state.status = event.status;
      return;
    case 'run_end':
      state.status = event.status;
      state.ended = true;
      if (event.head) state.integrationHead = event.head;
      return;
    case 'dag_note':
    case 'check':
    case 'gate':
      return;
  }
}
