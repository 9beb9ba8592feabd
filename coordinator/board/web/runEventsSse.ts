import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { readRunBoard } from '../../../shared/infra/board/readBoard.js';
import { followRunEvents } from '../../../shared/infra/board/runEventFollower.js';
import { lastRunEventId } from '../../../shared/infra/board/runEvents.js';
import type { BoardSource } from '../boardSource.js';

/** After new events, the board is sent again at most this often (a burst of tool calls is one update). */
const SEND_MS = 150;
/** A comment line this often keeps proxies from closing a quiet stream. */
const KEEPALIVE_MS = 15_000;

/**
 * The server's server-sent event streams, one per watching page. Each sends a `board` event with
 * the whole run board at once, then again whenever the run's stream grows (XREAD BLOCK on a
 * connection of its own), until the page goes or the server closes. The follower starts from the
 * stream's last id read before the first board, so nothing recorded after that board is missed.
 */
export class RunEventStreams {
  private readonly open = new Set<{ stop: AbortController; done: Promise<void> }>();

  constructor(private readonly source: BoardSource) {}

  respond(c: Context, runId: string): Response {
    return streamSSE(
      c,
      async (stream) => {
        const stop = new AbortController();
        let finished!: () => void;
        const entry = { stop, done: new Promise<void>((resolve) => (finished = resolve)) };
        this.open.add(entry);
        stream.onAbort(() => stop.abort());
        try {
          await this.follow(
            runId,
            stop.signal,
            (board) => stream.writeSSE({ event: 'board', data: board }),
            () => stream.write(': keepalive\n\n'),
          );
        } finally {
          this.open.delete(entry);
          finished();
        }
      },
      async (error) => {
        process.stderr.write(`orca serve: the event stream of run ${runId} failed: ${error.message}\n`);
      },
    );
  }

  /** Ends every stream and waits until each has let go of its Redis connection. */
  async close(): Promise<void> {
    const open = [...this.open];
    for (const { stop } of open) stop.abort();
    await Promise.all(open.map(({ done }) => done));
  }

  private async follow(
    runId: string,
    signal: AbortSignal,
    send: (board: string) => Promise<unknown>,
    keepalive: () => Promise<unknown>,
  ): Promise<void> {
    const { source } = this;
    const follower = source.connection();
    const stop = new AbortController();
    const onStop = () => stop.abort();
    signal.addEventListener('abort', onStop, { once: true });
    let dirty = false;
    let failure: unknown;
    try {
      const after = await lastRunEventId(source.redis, source.keys, runId);
      const sendBoard = async () => send(JSON.stringify(await readRunBoard(source.redis, source.keys, runId)));
      await sendBoard();
      const following = followRunEvents(follower, source.keys, runId, () => (dirty = true), stop.signal, after).catch((error: unknown) => {
        failure = error;
        stop.abort();
      });
      let quiet = 0;
      while (!stop.signal.aborted) {
        await new Promise((resolve) => setTimeout(resolve, SEND_MS));
        quiet += SEND_MS;
        if (dirty) {
          dirty = false;
          quiet = 0;
          await sendBoard();
        } else if (quiet >= KEEPALIVE_MS) {
          quiet = 0;
          await keepalive();
        }
      }
      await following;
      if (failure) throw failure;
    } finally {
      signal.removeEventListener('abort', onStop);
      source.release(follower);
    }
  }
}
