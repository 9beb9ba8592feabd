import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { readRunBoard } from '../../../shared/board/readBoard.js';
import { followRunEvents } from '../../../shared/queue/runEventFollower.js';
import { lastRunEventId } from '../../../shared/queue/runEvents.js';
import type { BoardSource } from '../boardSource.js';

/** After new events, the board is sent again at most this often (a burst of tool calls is one update). */
const SEND_MS = 150;
/** A comment line this often keeps proxies from closing a quiet stream. */
const KEEPALIVE_MS = 15_000;

/**
 * Server-sent events for one run: a `board` event with the whole run board at once, then again
 * whenever the run's stream grows (XREAD BLOCK on a connection of this client's own), until the
 * client goes or the server closes. The follower starts from the stream's last id read before the
 * first board, so nothing recorded after that board is missed.
 */
export function runEventsSse(c: Context, source: BoardSource, runId: string, closing: AbortSignal): Response {
  return streamSSE(
    c,
    async (stream) => {
      const stop = new AbortController();
      const onClosing = () => stop.abort();
      closing.addEventListener('abort', onClosing, { once: true });
      stream.onAbort(() => stop.abort());
      const follower = source.connection();
      let dirty = false;
      let failure: unknown;
      try {
        const after = await lastRunEventId(source.redis, source.keys, runId);
        const send = async () => {
          const board = await readRunBoard(source.redis, source.keys, runId);
          await stream.writeSSE({ event: 'board', data: JSON.stringify(board) });
        };
        await send();
        const following = followRunEvents(follower, source.keys, runId, () => (dirty = true), stop.signal, after).catch((error: unknown) => {
          failure = error;
          stop.abort();
        });
        let quiet = 0;
        while (!stop.signal.aborted) {
          await stream.sleep(SEND_MS);
          quiet += SEND_MS;
          if (dirty) {
            dirty = false;
            quiet = 0;
            await send();
          } else if (quiet >= KEEPALIVE_MS) {
            quiet = 0;
            await stream.write(': keepalive\n\n');
          }
        }
        await following;
        if (failure) throw failure;
      } finally {
        closing.removeEventListener('abort', onClosing);
        source.release(follower);
      }
    },
    async (error) => {
      process.stderr.write(`orca serve: the event stream of run ${runId} failed: ${error.message}\n`);
    },
  );
}
