import { answerRequest, firstAnswer, isSameAnswer } from '../../shared/infra/asks/answerRequest.js';
import type { Ask } from '../../shared/infra/board/boardSchemas.js';
import type { AnsweredAsk, RunBoard } from '../../shared/infra/board/readBoard.js';
import { BoardSource } from '../board/boardSource.js';
import { UserError } from '../repoCheck.js';
import { personHere } from './personHere.js';

export interface AnswerCommandOptions {
  run: string;
  /** The request id; the run's only pending request when undefined. */
  request?: string;
  allowed: boolean;
  /** Also remember the request's suggested rules for the rest of the run. */
  forRun: boolean;
  reason?: string;
}

/**
 * `orca allow RUN [REQUEST] [--for-run]` / `orca deny RUN [REQUEST] [--reason TEXT]`: answers an
 * agent's permission request from any host that reaches the run's Redis. The first answer on the
 * run's stream counts: exit 0 when this one did, 1 when another came first (it is named).
 */
export async function answerCommand(options: AnswerCommandOptions): Promise<number> {
  const source = await BoardSource.open({ run: options.run });
  try {
    const board = await source.board(await source.runId(options.run));
    const ask = pick(board, options.request);
    const who = personHere();
    const command = options.allowed ? 'orca allow' : 'orca deny';
    const remember = options.allowed && options.forRun ? ask.suggestion : [];
    const ours = await answerRequest(source.redis, source.keys, board.run.run_id, {
      task_id: ask.task_id,
      request_id: ask.id,
      allowed: options.allowed,
      reason: `${options.allowed ? 'allowed' : 'denied'} by ${who} with ${command}${options.reason ? `: ${options.reason}` : ''}`,
      by: who,
      via: 'command',
      remember,
    });
    const counted = await firstAnswer(source.redis, source.keys, board.run.run_id, ask.id);
    const what = `${ask.task_id}: ${ask.tool} ${ask.summary}`;
    if (!isSameAnswer(counted, ours)) {
      process.stdout.write(
        `orca: request ${ask.id} of run ${board.run.run_id} (${what}) was answered first by ${describeAnswer(counted)}\n`,
      );
      return 1;
    }
    const kept = remember.length > 0 ? `, and ${remember.join(', ')} for the rest of the run` : '';
    const none = options.forRun && options.allowed && remember.length === 0 ? ' (it suggests no rule to keep: allowed once)' : '';
    process.stdout.write(
      `orca: request ${ask.id} of run ${board.run.run_id} (${what}) ${options.allowed ? 'allowed' : 'denied'}${kept}${none}\n`,
    );
    return 0;
  } finally {
    source.close();
  }
}

/** The request named, or the run's only pending one; anything else is the user's error, with what there is. */
function pick(board: RunBoard, requestId: string | undefined): Ask {
  const runId = board.run.run_id;
  if (requestId === undefined) {
    if (board.asks.length === 1) return board.asks[0]!;
    if (board.asks.length === 0) throw new UserError(`run ${runId} has no pending permission requests.`);
    throw new UserError(
      `run ${runId} has ${board.asks.length} pending permission requests; name one: ${board.asks.map(listed).join('; ')}`,
    );
  }
  const pending = board.asks.find((ask) => ask.id === requestId);
  if (pending) return pending;
  const answered = board.answered.find((ask) => ask.id === requestId);
  if (answered) throw new UserError(`request ${requestId} of run ${runId} was already answered: ${describeAnswer(answered.answer)}.`);
  const others = board.asks.length > 0 ? `; pending: ${board.asks.map(listed).join('; ')}` : '; it has none pending';
  throw new UserError(`run ${runId} has no permission request ${requestId}${others}.`);
}

function listed(ask: Ask): string {
  return `${ask.id} (${ask.task_id}: ${ask.tool} ${ask.summary})`;
}

function describeAnswer(answer: AnsweredAsk['answer'] | undefined): string {
  if (!answer) return 'nobody yet';
  return `${answer.by} (${answer.via}): ${answer.allowed ? 'allowed' : 'denied'}`;
}
