import { BoardSource } from './boardSource.js';
import { boardText } from './boardText.js';

/**
 * `orca status [RUN] [--json]`: one snapshot of a run's board (the latest run when none is named).
 * `--json` prints the same data as one object: the run, its tasks, its evidence and notes.
 */
export async function statusCommand(
  run: string | undefined,
  options: { json: boolean },
  out: NodeJS.WriteStream = process.stdout,
): Promise<number> {
  const source = await BoardSource.open({ run });
  try {
    const board = await source.board(await source.runId(run));
    if (options.json) out.write(`${JSON.stringify(board)}\n`);
    else out.write(`${boardText(board, { now: Date.now(), color: out.isTTY === true }).join('\n')}\n`);
    return 0;
  } finally {
    source.close();
  }
}
