/**
 * Every Redis key orca writes, in one place. All keys share a prefix (`ORCA_PREFIX`, default
 * `orca`; a hash tag on a cluster) so tests, and separate installations, can share one Redis
 * without meeting.
 */
export const AGENT_QUEUE = 'agents';

/**
 * The prefix of every key. On a Redis Cluster (REDIS_CLUSTER_NODES) it is a hash tag, `{orca}`
 * or `{<ORCA_PREFIX>}`: every key then lives in one slot, so BullMQ's multi-key scripts and orca's
 * own transactions never cross slots (BullMQ's documented pattern for clusters: a prefix in braces).
 */
export function orcaPrefix(): string {
  return withHashTag(process.env.ORCA_PREFIX || 'orca');
}

/** The prefix as a hash tag on a cluster (unless it already holds one); as it is otherwise. */
function withHashTag(prefix: string): string {
  return process.env.REDIS_CLUSTER_NODES?.trim() && !/\{[^}]+\}/.test(prefix) ? `{${prefix}}` : prefix;
}

export class Keys {
  readonly prefix: string;

  constructor(prefix: string = orcaPrefix()) {
    this.prefix = withHashTag(prefix);
  }

  /** The BullMQ prefix: BullMQ builds `<prefix>:<queue>:…` under it. */
  get bull(): string {
    return `${this.prefix}:bull`;
  }

  run(runId: string): string {
    return `${this.prefix}:run:${runId}`;
  }

  runs(): string {
    return `${this.prefix}:runs`;
  }

  task(runId: string, taskId: string): string {
    return `${this.prefix}:run:${runId}:task:${taskId}`;
  }

  runTasks(runId: string): string {
    return `${this.prefix}:run:${runId}:tasks`;
  }

  events(runId: string): string {
    return `${this.prefix}:run:${runId}:events`;
  }

  /** The board's list of a task's evidence (check logs, gates), written from the run's events. */
  taskEvidence(runId: string, taskId: string): string {
    return `${this.prefix}:run:${runId}:task:${taskId}:evidence`;
  }

  /** The board's list of the run's own evidence: integration checks and gates on the merged tree. */
  runEvidence(runId: string): string {
    return `${this.prefix}:run:${runId}:evidence`;
  }

  /** The board's list of the coordinator's notes on the plan (serialised overlaps, dropped edges). */
  runNotes(runId: string): string {
    return `${this.prefix}:run:${runId}:notes`;
  }

  /** The board's hash of a run's permission requests (request id → the request), written from the run's events. */
  runAsks(runId: string): string {
    return `${this.prefix}:run:${runId}:asks`;
  }

  /** The board's hash of the first answer to each request (request id → the answer): later answers never replace it. */
  runAnswers(runId: string): string {
    return `${this.prefix}:run:${runId}:answers`;
  }

  /** A run's coordinator says it is alive here (a key that expires unless renewed: coordinatorPulse.ts). */
  runCoordinator(runId: string): string {
    return `${this.prefix}:run:${runId}:coordinator`;
  }

  /** Pub/sub channel announcing run aborts to every worker. */
  abortChannel(): string {
    return `${this.prefix}:abort`;
  }

  /** Set of aborted run ids, so a worker that was not listening still learns of an abort. */
  aborted(): string {
    return `${this.prefix}:aborted`;
  }

  portLease(host: string, port: number): string {
    return `${this.prefix}:port:${host}:${port}`;
  }

  portLeases(): string {
    return `${this.prefix}:port:*`;
  }

  approval(runId: string): string {
    return `${this.prefix}:run:${runId}:approval`;
  }

  /**
   * The fan-out gate of one static prompt prefix in a run (`gate`: role and prefix hash): the
   * first agent to claim its leader key goes first; the others wait on its started list.
   */
  fanoutLeader(runId: string, gate: string): string {
    return `${this.prefix}:run:${runId}:fanout:${gate}:leader`;
  }

  /** Holds an entry once the leader's response started (or its call failed): waiters go then. */
  fanoutStarted(runId: string, gate: string): string {
    return `${this.prefix}:run:${runId}:fanout:${gate}:started`;
  }

  /** One task of a task list (a hash): the coordinator's subtasks, or one agent's own list. */
  taskListTask(runId: string, listId: string, taskId: string): string {
    return `${this.prefix}:run:${runId}:tasklist:${listId}:task:${taskId}`;
  }

  /** A task list's task ids, scored by creation order (a sorted set). */
  taskListIndex(runId: string, listId: string): string {
    return `${this.prefix}:run:${runId}:tasklist:${listId}:tasks`;
  }

  /** The counter a task list numbers its new tasks from. */
  taskListSequence(runId: string, listId: string): string {
    return `${this.prefix}:run:${runId}:tasklist:${listId}:seq`;
  }
}
