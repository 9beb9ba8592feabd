import readline from 'node:readline';
import type { Redis } from 'ioredis';
import { followRunEvents } from '../../shared/infra/board/runEventFollower.js';
import type { Keys } from '../../shared/infra/redis/keys.js';

/**
 * Waits for an answer to a plan shown with `--approve`: y/n on the terminal when there is one, or
 * `orca approve RUN` / `orca reject RUN` from anywhere (an `approval` event on the run's stream).
 * The first answer wins.
 */
export async function waitForApproval(
  connection: Redis,
  keys: Keys,
  runId: string,
  options: { tty: boolean; signal: AbortSignal; afterId: string },
): Promise<{ approved: boolean; by: string }> {
  const done = new AbortController();
  const onAbort = () => done.abort();
  options.signal.addEventListener('abort', onAbort, { once: true });
  let rl: readline.Interface | undefined;
  try {
    return await new Promise<{ approved: boolean; by: string }>((resolve, reject) => {
      followRunEvents(
        connection,
        keys,
        runId,
        (entry) => {
          if (entry.source === 'run' && entry.event.type === 'approval') {
            resolve({ approved: entry.event.approved === true, by: String(entry.event.by ?? 'orca approve') });
          }
        },
        done.signal,
        options.afterId,
      ).then(() => {
        if (options.signal.aborted) reject(new Error('the run was aborted while waiting for approval'));
      }, reject);
      if (options.tty) {
        rl = readline.createInterface({ input: process.stdin, output: process.stderr });
        const ask = () =>
          rl!.question('Approve this plan? [y/n] ', (answer) => {
            const a = answer.trim().toLowerCase();
            if (a === 'y' || a === 'yes') resolve({ approved: true, by: 'terminal' });
            else if (a === 'n' || a === 'no') resolve({ approved: false, by: 'terminal' });
            else ask();
          });
        ask();
      }
    });
  } finally {
    done.abort();
    rl?.close();
    options.signal.removeEventListener('abort', onAbort);
  }
}
