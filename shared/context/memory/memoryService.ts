import { ToolError } from '../../core/boundary/toolError.js';
import type { SessionServices } from '../../core/tool/tool.js';
import type { InjectedCard, RememberedCard } from '../../infra/queue/memoryPayload.js';

/**
 * A session's link to memory: the run's project scope and clock, the cards the session was
 * given, and the cards its Remember calls admitted, which the job hands back for the
 * coordinator to file (the store is the coordinator's: memoryStore.ts).
 */
export class SessionMemory {
  readonly remembered: RememberedCard[] = [];

  constructor(
    readonly options: {
      /** `project:<repository id>`. */
      scope: string;
      /** The run's day, YYYY-MM-DD. */
      today: string;
      /** `run <run> task <task>`. */
      source: string;
      /** The cards chosen for this session (what a new card may contradict right away). */
      given: readonly InjectedCard[];
    },
  ) {}

  /** Keeps a card; one on the same subject remembered earlier in this session is replaced by it. */
  keep(card: RememberedCard, replaces?: number): void {
    if (replaces !== undefined) this.remembered.splice(replaces, 1, card);
    else this.remembered.push(card);
  }
}

declare module '../../core/tool/tool.js' {
  interface SessionServices {
    memory?: SessionMemory;
  }
}

export function sessionMemoryOf(services: SessionServices): SessionMemory {
  if (!services.memory) throw new ToolError('Remember is not available: this session has no memory (it runs outside an orca run).');
  return services.memory;
}
