import readline from 'node:readline';
import type { AgentEventInput } from '../../core/events/agentEvent.js';
import type { AnswerVia } from '../../core/events/permissionAsk.js';

/** What a permission prompt asks about one call. */
export interface PermissionQuestion {
  tool: string;
  /** The command or path the call acts on. */
  summary: string;
  /** Why the call needs an answer: the rule, the mode, the guarded path, … */
  reason: string;
  /** The request's id, when the session asks across the run (what `orca allow RUN ID` names). */
  id?: string;
  /** The rule, mode, check or hook that asked. */
  by?: string;
  /** The call's input, as the tool parsed it. */
  input?: unknown;
  /** The agent's working directory. */
  cwd?: string;
  /** Allow rules that would answer calls like this one for the rest of the run. */
  suggestion?: string[];
}

export interface PermissionAnswer {
  allowed: boolean;
  /** Why, as the model will read it when the answer is no. */
  reason: string;
  /** Who answered (`alice@build-3`, `web board (127.0.0.1)`); the prompter's name when unset. */
  by?: string;
  /** How the answer came, when it came over the run's stream. */
  via?: AnswerVia;
  /** The request it answers. */
  requestId?: string;
}

/** Allow rules that answer matching questions before anyone is asked, and where they come from. */
export interface AnswersInAdvance {
  rules: string[];
  /** `--yes-to`, `allowed for the run by alice@build-3 (terminal)`, … */
  source: string;
}

/**
 * Who answers when a call needs more than the session's mode or rules give: a person at the
 * terminal, the people watching a run (over its stream), a list of preset answers, or nobody.
 * The session's code is the same for all of them.
 */
export interface Prompter {
  /** Names the prompter in permission events: `prompter:interactive`, … */
  readonly name: string;
  /**
   * Asks, and resolves with the first answer. `announce` records an event at once (not after the
   * call): a prompter that puts its question where others see it announces it there.
   */
  ask(question: PermissionQuestion, signal?: AbortSignal, announce?: (event: AgentEventInput) => void): Promise<PermissionAnswer>;
  /** Answers given before any question (`--yes-to`, allows for the rest of the run): asked afresh at each ask. */
  answersInAdvance?(signal?: AbortSignal): Promise<AnswersInAdvance[]>;
}

/** Headless: nobody can answer, so everything that needs an answer is refused, with the reason. */
export class DenyPrompter implements Prompter {
  readonly name = 'deny';

  async ask(question: PermissionQuestion): Promise<PermissionAnswer> {
    return {
      allowed: false,
      reason: `${question.reason}. This session runs without anyone to ask, so it was refused; do it another way or leave it for a person.`,
    };
  }
}

/** Preset answers, in order, for tests; every question asked is kept in `questions`. */
export class RecordingPrompter implements Prompter {
  readonly name = 'recording';
  readonly questions: PermissionQuestion[] = [];
  private readonly answers: boolean[];

  constructor(answers: boolean[]) {
    this.answers = [...answers];
  }

  async ask(question: PermissionQuestion): Promise<PermissionAnswer> {
    this.questions.push(question);
    const answer = this.answers.shift();
    if (answer === undefined) {
      return { allowed: false, reason: `${question.reason}; refused: question ${this.questions.length} has no preset answer` };
    }
    return answer
      ? { allowed: true, reason: 'approved (preset answer)' }
      : { allowed: false, reason: `${question.reason}; refused (preset answer)` };
  }
}

/**
 * Asks a person, y/n, on a terminal. Questions wait their turn, so parallel tool calls never
 * interleave their prompts. From its first question on it reads the input until `close()`, and a
 * line typed while nothing is asked is dropped rather than taken as the answer to a later
 * question. Anything but y or yes is a no; so are closed input and an abort.
 */
export class InteractivePrompter implements Prompter {
  readonly name = 'interactive';
  private queue: Promise<unknown> = Promise.resolve();
  private readonly input: NodeJS.ReadableStream;
  private readonly output: NodeJS.WritableStream;
  private lines?: readline.Interface;
  private closed = false;
  /** The answer the current question waits for; undefined means the input closed. */
  private waiting?: (reply: string | undefined) => void;

  constructor(options: { input?: NodeJS.ReadableStream; output?: NodeJS.WritableStream } = {}) {
    this.input = options.input ?? process.stdin;
    this.output = options.output ?? process.stderr;
  }

  ask(question: PermissionQuestion, signal?: AbortSignal): Promise<PermissionAnswer> {
    const turn = this.queue.then(() => this.askNow(question, signal));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  close(): void {
    this.lines?.close();
  }

  private listen(): void {
    if (this.lines) return;
    this.lines = readline.createInterface({ input: this.input, terminal: false });
    this.lines.on('line', (line) => this.waiting?.(line));
    this.lines.on('close', () => {
      this.closed = true;
      this.waiting?.(undefined);
    });
  }

  private askNow(question: PermissionQuestion, signal?: AbortSignal): Promise<PermissionAnswer> {
    const aborted: PermissionAnswer = { allowed: false, reason: 'the session was aborted before anyone answered' };
    if (signal?.aborted) return Promise.resolve(aborted);
    this.listen();
    if (this.closed) return Promise.resolve({ allowed: false, reason: `${question.reason}; refused: the terminal input is closed` });
    this.output.write(`\norca: ${question.tool} wants to run: ${question.summary}\n  ${question.reason}\nAllow? [y/N] `);
    return new Promise<PermissionAnswer>((resolve) => {
      const finish = (answer: PermissionAnswer) => {
        this.waiting = undefined;
        signal?.removeEventListener('abort', onAbort);
        resolve(answer);
      };
      const onAbort = () => finish(aborted);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting = (reply) => {
        if (reply === undefined) finish({ allowed: false, reason: `${question.reason}; refused: the terminal closed without an answer` });
        else if (/^\s*y(es)?\s*$/i.test(reply)) finish({ allowed: true, reason: 'approved at the terminal' });
        else finish({ allowed: false, reason: `${question.reason}; refused at the terminal` });
      };
    });
  }
}
