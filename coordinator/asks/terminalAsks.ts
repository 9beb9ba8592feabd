import readline from 'node:readline';
import type { Redis } from 'ioredis';
import { type PermissionRequestEvent, PermissionRequestEventSchema } from '../../shared/core/events/permissionAsk.js';
import type { RunStreamEntry } from '../../shared/core/events/runStreamEntry.js';
import { answerRequest } from '../../shared/infra/asks/answerRequest.js';
import type { Keys } from '../../shared/infra/redis/keys.js';
import { personHere } from './personHere.js';

export interface TerminalAsksOptions {
  redis: Redis;
  keys: Keys;
  runId: string;
  /** Writes one line for the person watching (stderr). */
  write: (line: string) => void;
  /** A person is at the terminal (stdin and stderr are TTYs): requests are asked here; otherwise they are only shown. */
  interactive: boolean;
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
}

type Request = PermissionRequestEvent & { task_id: string };

/**
 * The permission requests of a run, at the terminal of `orca run` / `orca agent`: each is shown
 * with its task and its command, and (on a terminal) asked with `y` / `n` / `a` (allow for the
 * rest of the run, as the request's suggested rules), one at a time in the order they came. A
 * request answered elsewhere first (the board, `orca allow`, a timeout) leaves the prompt. Lines
 * printed while a question is open go above it, and the answer being typed is drawn again below,
 * so progress never garbles the prompt.
 */
export class TerminalAsks {
  private readonly queue: Request[] = [];
  private readonly done = new Set<string>();
  /** Requests shown without a prompt (no terminal): their first answer is shown too. */
  private readonly shownOnly = new Set<string>();
  private current?: Request;
  private lines?: readline.Interface;
  private readonly who = personHere();
  private closed = false;

  constructor(private readonly options: TerminalAsksOptions) {}

  /** A question is open at the prompt. */
  get prompting(): boolean {
    return this.current !== undefined;
  }

  /** Follows the run's stream: requests join the queue, answers and ended agents take theirs out. */
  onEntry(entry: RunStreamEntry): void {
    const { event } = entry;
    if (entry.source === 'agent' && event.type === 'permission_request' && entry.task_id !== undefined) {
      const parsed = PermissionRequestEventSchema.safeParse(event);
      if (!parsed.success || this.done.has(parsed.data.id)) return;
      const request = { ...parsed.data, task_id: entry.task_id };
      if (!this.options.interactive) {
        this.done.add(request.id);
        this.shownOnly.add(request.id);
        this.print(describe(request, this.options.runId).join('\n'));
        return;
      }
      this.queue.push(request);
      this.next();
    } else if (entry.source === 'run' && event.type === 'permission_answer') {
      const id = String(event.request_id);
      if (this.shownOnly.delete(id)) {
        this.print(`  request ${id} was ${event.allowed ? 'allowed' : 'denied'} by ${String(event.by)} (${String(event.via)})`);
        return;
      }
      const shown = this.current?.id === id || this.queue.some((request) => request.id === id);
      if (this.done.has(id) && !shown) return;
      this.done.add(id);
      if (!shown || (event.via === 'terminal' && event.by === this.who)) return;
      this.drop((request) => request.id === id);
      this.print(`  request ${id} was ${event.allowed ? 'allowed' : 'denied'} by ${String(event.by)} (${String(event.via)})`);
    } else if (entry.source === 'agent' && event.type === 'end' && entry.task_id !== undefined) {
      // Its agent has ended: whatever it asked needs no answer now.
      this.drop((request) => request.task_id === entry.task_id);
    }
  }

  /** One line for the person watching; while a question is open it goes above the prompt. */
  print(line: string): void {
    if (!this.lines || !this.current) {
      this.options.write(line);
      return;
    }
    const output = this.output();
    readline.clearLine(output, 0);
    readline.cursorTo(output, 0);
    this.options.write(line);
    this.lines.prompt(true);
  }

  close(): void {
    this.closed = true;
    this.lines?.close();
    this.lines = undefined;
  }

  private output(): NodeJS.WritableStream {
    return this.options.output ?? process.stderr;
  }

  /** Takes requests out of the queue; the open one too, when it is among them. */
  private drop(which: (request: Request) => boolean): void {
    for (let i = this.queue.length - 1; i >= 0; i -= 1) if (which(this.queue[i]!)) this.done.add(this.queue.splice(i, 1)[0]!.id);
    if (this.current && which(this.current)) {
      this.done.add(this.current.id);
      this.current = undefined;
      const output = this.output();
      readline.clearLine(output, 0);
      readline.cursorTo(output, 0);
      this.next();
    }
  }

  private next(): void {
    if (this.current || this.closed) return;
    const request = this.queue.shift();
    if (!request) return;
    this.current = request;
    const lines = this.listen();
    const remember = request.suggestion.length > 0 ? ` / [a]llow ${request.suggestion.join(', ')} for the rest of the run` : '';
    this.options.write(describe(request, this.options.runId).join('\n'));
    lines.setPrompt(`Allow? [y]es / [n]o${remember}: `);
    lines.prompt();
  }

  private listen(): readline.Interface {
    if (this.lines) return this.lines;
    const lines = readline.createInterface({ input: this.options.input ?? process.stdin, output: this.output(), terminal: true });
    lines.on('line', (text) => void this.reply(text.trim().toLowerCase()));
    // On a terminal readline takes Ctrl-C: it still aborts the run, as it does without a prompt.
    lines.on('SIGINT', () => process.emit('SIGINT'));
    this.lines = lines;
    return lines;
  }

  private async reply(text: string): Promise<void> {
    const request = this.current;
    if (!request) return;
    const always = text === 'a' && request.suggestion.length > 0;
    const allowed = text === 'y' || text === 'yes' || always;
    if (!allowed && text !== 'n' && text !== 'no') {
      this.lines?.prompt();
      return;
    }
    this.current = undefined;
    this.done.add(request.id);
    const how = always ? `allowed for the rest of the run (${request.suggestion.join(', ')})` : allowed ? 'allowed' : 'denied';
    this.options.write(`  request ${request.id} ${how} here`);
    try {
      await answerRequest(this.options.redis, this.options.keys, this.options.runId, {
        task_id: request.task_id,
        request_id: request.id,
        allowed,
        reason: allowed ? `allowed at the terminal by ${this.who}` : `denied at the terminal by ${this.who}`,
        by: this.who,
        via: 'terminal',
        remember: always ? request.suggestion : [],
      });
    } catch (error) {
      this.options.write(`orca: the answer to request ${request.id} was not recorded: ${(error as Error).message}`);
    }
    this.next();
  }
}

/** A request as the terminal shows it: the task and its command, why it asks, and how else to answer. */
export function describe(request: Request, runId: string): string[] {
  return [
    `? ${request.task_id} (${request.role}) asks to run ${request.tool}: ${request.summary}`,
    `  ${request.reason}`,
    `  request ${request.id} in ${request.cwd}; answer here, on the board, or with \`orca allow ${runId} ${request.id}\` / \`orca deny ${runId} ${request.id}\``,
  ];
}
