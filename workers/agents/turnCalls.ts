import { CallStopped } from '../../shared/core/tool/callStopped.js';

/** A call the agent made after its turn ended: not run. */
export class TurnEnded extends Error {}

/**
 * The calls of orca's tools an external agent's turn started (over MCP, or ACP's file system and
 * terminals). Its end stops the ones still running, with every process they started, waits for
 * them, and refuses any the agent starts after it until the next prompt: the stop checks' look
 * and the commit then see the tree as the last call left it, and no call of a session outlives
 * it. An agent that keeps a terminal running or a call going past its turn (a misbehaving one: a
 * well-behaved one waits for its calls) would otherwise write after the look that judged its
 * Report, or into a worktree given to another task.
 */
export class TurnCalls {
  private readonly running = new Set<Promise<void>>();
  private stop = new AbortController();
  private ended: string | undefined;

  /**
   * Starts `call` as one of the turn's, given the turn's stop signal. Throws TurnEnded at once,
   * starting nothing, once the turn has ended.
   */
  run<T>(call: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.ended !== undefined) throw new TurnEnded(`orca ran no call: ${this.ended}`);
    const result = call(this.stop.signal);
    // Only that it ended is tracked here: its outcome, a failure included, is the caller's.
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    this.running.add(settled);
    void settled.then(() => this.running.delete(settled));
    return result;
  }

  /** Ends the turn (`why` is told to each call stopped and each refused); resolves once none of its calls runs. */
  async end(why: string): Promise<void> {
    this.ended = why;
    this.stop.abort(new CallStopped(why));
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  /** A new prompt: the agent may call again. */
  open(): void {
    this.ended = undefined;
    if (this.stop.signal.aborted) this.stop = new AbortController();
  }
}
