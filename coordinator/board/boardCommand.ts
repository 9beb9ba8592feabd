import { readRunBoard } from '../../shared/infra/board/readBoard.js';
import { followRunEvents } from '../../shared/infra/board/runEventFollower.js';
import { lastRunEventId } from '../../shared/infra/board/runEvents.js';
import { publishAbort } from '../../shared/infra/queue/runAbort.js';
import { BoardSource } from './boardSource.js';
import { boardText } from './boardText.js';
import { withResultState } from './runResultState.js';

/** Redraw at once after new events, but no more often than this. */
const REDRAW_MS = 100;
/** Redraw this often anyway, so elapsed times move while nothing happens. */
const TICK_MS = 1_000;

const ENTER_SCREEN = '\x1b[?1049h\x1b[?25l';
const LEAVE_SCREEN = '\x1b[?25h\x1b[?1049l';
const HOME = '\x1b[H';
const CLEAR_LINE_END = '\x1b[K';
const CLEAR_BELOW = '\x1b[J';
const CTRL_C = '\x03';

export interface BoardTerminal {
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
}

/**
 * `orca board [RUN]`: the run's board, live in the terminal, redrawn in place as the run's events
 * arrive (XREAD BLOCK on a connection of its own). `q` quits; `a` aborts the run after a y/n
 * confirmation. Without a terminal on both ends it prints one snapshot, like `orca status`.
 */
export async function boardCommand(
  run: string | undefined,
  terminal: BoardTerminal = { input: process.stdin, output: process.stdout },
): Promise<number> {
  const source = await BoardSource.open({ run });
  try {
    const runId = await source.runId(run);
    const first = await source.board(runId);
    const { input, output } = terminal;
    if (!input.isTTY || !output.isTTY) {
      output.write(`${boardText(first, { now: Date.now(), color: false }).join('\n')}\n`);
      return 0;
    }
    await new LiveBoard(source, runId, terminal).show();
    return 0;
  } finally {
    source.close();
  }
}

class LiveBoard {
  private dirty = true;
  private lastDraw = 0;
  private prompt: 'keys' | 'confirm' = 'keys';
  private message = '';
  private drawing = false;
  private lastLines: string[] = [];

  constructor(
    private readonly source: BoardSource,
    private readonly runId: string,
    private readonly terminal: BoardTerminal,
  ) {}

  async show(): Promise<void> {
    const { input, output } = this.terminal;
    const stop = new AbortController();
    const follower = this.source.connection();
    const after = await lastRunEventId(this.source.redis, this.source.keys, this.runId);
    let failure: unknown;
    const fail = (error: unknown) => {
      failure ??= error;
      stop.abort();
    };

    output.write(ENTER_SCREEN);
    input.setRawMode(true);
    input.resume();
    const onKey = (data: Buffer) => {
      for (const key of data.toString('utf8')) this.key(key, stop).catch(fail);
    };
    const onResize = () => {
      this.dirty = true;
    };
    // Killed politely, the board still hands the terminal back as it found it.
    const onSignal = () => stop.abort();
    input.on('data', onKey);
    output.on('resize', onResize);
    process.on('SIGTERM', onSignal);
    process.on('SIGHUP', onSignal);
    const timer = setInterval(() => {
      if (this.dirty || Date.now() - this.lastDraw >= TICK_MS) this.draw().catch(fail);
    }, REDRAW_MS);
    const following = followRunEvents(follower, this.source.keys, this.runId, () => (this.dirty = true), stop.signal, after).catch(fail);
    try {
      await this.draw();
      await new Promise<void>((resolve) => stop.signal.addEventListener('abort', () => resolve(), { once: true }));
      await following;
    } finally {
      clearInterval(timer);
      input.off('data', onKey);
      output.off('resize', onResize);
      process.off('SIGTERM', onSignal);
      process.off('SIGHUP', onSignal);
      input.setRawMode(false);
      input.pause();
      output.write(LEAVE_SCREEN);
      this.source.release(follower);
    }
    if (failure) throw failure;
    // The last frame stays in the scrollback once the board's own screen is gone.
    output.write(`${this.lastLines.join('\n')}\n`);
  }

  private async key(key: string, stop: AbortController): Promise<void> {
    if (this.prompt === 'confirm') {
      this.prompt = 'keys';
      if (key === 'y' || key === 'Y') {
        await publishAbort(this.source.redis, this.source.keys, this.runId, 'aborted from orca board');
        this.message = `abort of run ${this.runId} published`;
      } else {
        this.message = 'abort cancelled';
      }
      this.dirty = true;
      return;
    }
    if (key === 'q' || key === CTRL_C) stop.abort();
    else if (key === 'a') {
      this.prompt = 'confirm';
      this.message = '';
      this.dirty = true;
    }
  }

  private async draw(): Promise<void> {
    if (this.drawing) return;
    this.drawing = true;
    try {
      this.dirty = false;
      this.lastDraw = Date.now();
      const read = await readRunBoard(this.source.redis, this.source.keys, this.runId);
      if (!read) throw new Error(`run ${this.runId} is no longer recorded in Redis`);
      const board = await withResultState(read);
      const { output } = this.terminal;
      const width = output.columns || 100;
      this.lastLines = boardText(board, { now: Date.now(), color: false, width });
      const footer =
        this.prompt === 'confirm' ? `abort run ${this.runId}? y/n` : `q quit · a abort the run${this.message ? ` · ${this.message}` : ''}`;
      let body = boardText(board, { now: Date.now(), color: true, width });
      // A frame taller than the terminal would scroll, and the next one would not land in place.
      const room = (output.rows || 40) - 2;
      if (body.length > room)
        body = [...body.slice(0, room - 1), `… ${body.length - room + 1} more line(s): enlarge the terminal, or see orca status`];
      const frame = [...body, '', `\x1b[7m${footer.slice(0, width)}\x1b[0m`];
      // Each line clears what a longer line of the last frame left after it; below the frame, all goes.
      output.write(`${HOME}${frame.map((line) => `${line}${CLEAR_LINE_END}`).join('\n')}${CLEAR_BELOW}`);
    } finally {
      this.drawing = false;
    }
  }
}
