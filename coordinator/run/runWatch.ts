import type { Redis } from 'ioredis';
import type { RunStreamEntry } from '../../shared/core/events/runStreamEntry.js';
import { IN_FLIGHT, SETTLED } from '../../shared/core/events/taskStatusGroups.js';
import type { Usage } from '../../shared/core/model/usage.js';
import { totalInputTokens } from '../../shared/core/model/usage.js';
import { groupedNumber } from '../../shared/core/text/groupedNumber.js';
import { followRunEvents } from '../../shared/infra/board/runEventFollower.js';
import type { RunFold } from '../../shared/infra/board/runFold.js';
import type { Keys } from '../../shared/infra/redis/keys.js';
import type { TerminalAsks } from '../asks/terminalAsks.js';

export interface RunBudgets {
  /** Input (all kinds) plus output tokens over every agent of the run. */
  maxTokens?: number;
  maxCostUsd?: number;
}

/**
 * Watches a run's stream while it goes: keeps live token and cost totals from the agents' usage
 * events (so a budget stops the run mid-agent, not after), prints a line per task state change
 * and keeps a live summary line on a terminal.
 */
export class RunWatch {
  /** Latest totals of each running agent, by `task_id#attempt`. */
  private readonly live = new Map<string, { tokens: number; cost: number }>();
  private readonly stop = new AbortController();
  private following?: Promise<string>;
  private summaryShown = false;

  constructor(
    private readonly connection: Redis,
    private readonly keys: Keys,
    private readonly state: RunFold,
    private readonly options: {
      budgets: RunBudgets;
      onBudget: (reason: string) => void;
      print?: (line: string) => void;
      tty: boolean;
      /** The run's permission requests at this terminal: they see every entry, and print the lines while one is asked. */
      asks?: TerminalAsks;
    },
  ) {}

  /** A line for the person watching, under the live summary line (and above an open question). */
  say(text: string): void {
    this.line(text);
  }

  start(afterId = '$'): void {
    this.following = followRunEvents(
      this.connection,
      this.keys,
      this.state.run.run_id,
      (entry) => this.onEntry(entry),
      this.stop.signal,
      afterId,
    );
    this.following.catch((error: unknown) =>
      this.options.print?.(`orca: the run's event stream could not be followed: ${(error as Error).message}`),
    );
  }

  async close(): Promise<void> {
    this.stop.abort();
    await this.following?.catch(() => undefined);
    this.clearSummary();
  }

  totals(): { tokens: number; cost: number } {
    let tokens = totalInputTokens(this.state.run.result_usage) + this.state.run.result_usage.output_tokens;
    let cost = this.state.run.result_cost_usd;
    for (const agent of this.live.values()) {
      tokens += agent.tokens;
      cost += agent.cost;
    }
    return { tokens, cost };
  }

  private onEntry(entry: RunStreamEntry): void {
    if (this.options.asks && entry.event.type.startsWith('permission_')) {
      this.clearSummary();
      this.options.asks.onEntry(entry);
    }
    const event = entry.event as Record<string, unknown> & { type: string };
    const task = entry.task_id ?? '';
    if (entry.source === 'agent' && event.type === 'usage') {
      const total = event.total as Usage;
      const attempt = this.state.tasks.get(task)?.attempt ?? 0;
      this.live.set(`${task}#${attempt}`, { tokens: totalInputTokens(total) + total.output_tokens, cost: Number(event.total_cost_usd) });
      this.checkBudgets();
    }
    if (entry.source === 'run' && event.type === 'task_result') {
      // The finished agent's usage is now in the run state: stop counting it live.
      for (const key of [...this.live.keys()]) if (key.startsWith(`${task}#`)) this.live.delete(key);
    }
    if (entry.source === 'run' && event.type === 'task_state') {
      const detail = typeof event.detail === 'string' ? ` (${event.detail})` : '';
      this.line(`${String(event.task_id)}: ${String(event.status)}${detail}`);
    }
    if (entry.source === 'run' && event.type === 'memory_filed') this.line(`${String(event.task_id)}: memory: ${String(event.detail)}`);
    if (entry.source === 'agent' && event.type === 'tool_call' && this.options.tty) this.summary(`${task}: ${String(event.name)}`);
  }

  private checkBudgets(): void {
    const { tokens, cost } = this.totals();
    const { maxTokens, maxCostUsd } = this.options.budgets;
    if (maxTokens !== undefined && tokens >= maxTokens)
      this.options.onBudget(`the run's token budget of ${maxTokens} was reached (${tokens} used)`);
    else if (maxCostUsd !== undefined && cost >= maxCostUsd)
      this.options.onBudget(`the run's cost budget of $${maxCostUsd} was reached ($${cost.toFixed(4)} spent)`);
  }

  private line(text: string): void {
    if (!this.options.print) return;
    this.clearSummary();
    if (this.options.asks) this.options.asks.print(text);
    else this.options.print(text);
    if (this.options.tty) this.summary();
  }

  private summary(doing = ''): void {
    // The open question holds the last line of the terminal: the summary waits until it is answered.
    if (!this.options.print || !this.options.tty || this.options.asks?.prompting) return;
    const tasks = [...this.state.tasks.values()].filter((task) => !task.task_id.startsWith('_'));
    const done = tasks.filter((task) => SETTLED.includes(task.status)).length;
    const running = [...this.state.tasks.values()].filter((task) => IN_FLIGHT.includes(task.status)).length;
    const { tokens, cost } = this.totals();
    const text = `[${done}/${tasks.length} done · ${running} agent(s) running · ${groupedNumber(tokens)} tokens · $${cost.toFixed(4)}] ${doing}`;
    process.stderr.write(`\r\x1b[2K${text.slice(0, (process.stderr.columns ?? 120) - 1)}`);
    this.summaryShown = true;
  }

  private clearSummary(): void {
    if (this.summaryShown) process.stderr.write('\r\x1b[2K');
    this.summaryShown = false;
  }
}
