import { mkdirSync } from 'node:fs';
import path from 'node:path';
import pino, { type Logger } from 'pino';
import type { AgentEvent } from '../events/agentEvent.js';
import { SecretRedactor } from '../runtime/secretRedaction.js';

/**
 * An agent's transcript: one JSON line per event (streamed text deltas left out, since each
 * turn's whole text is recorded once), with API keys and tokens redacted, written by pino.
 */
export class Transcript {
  readonly file: string;
  private readonly logger: Logger;
  private readonly redactor: SecretRedactor;

  constructor(file: string, context: Record<string, string> = {}, redactor = new SecretRedactor()) {
    this.file = file;
    this.redactor = redactor;
    mkdirSync(path.dirname(file), { recursive: true });
    this.logger = pino(
      { base: context, timestamp: pino.stdTimeFunctions.epochTime, messageKey: 'msg' },
      pino.destination({ dest: file, sync: true, mkdir: true }),
    );
  }

  record(event: AgentEvent): void {
    if (event.type === 'text_delta') return;
    this.logger.info(this.redactor.redact(event) as object, event.type);
  }

  /** Flushes what is buffered; the file stays valid JSONL at every point. */
  flush(): void {
    this.logger.flush();
  }
}
