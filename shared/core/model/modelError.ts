/**
 * Why a model call failed. `retryable` kinds were already retried by the client up to its limit
 * by the time this is thrown; the loop does not retry them again.
 */
export type ModelErrorKind =
  | 'auth'
  | 'bad_request'
  | 'spend_limit'
  | 'not_found'
  | 'rate_limit'
  | 'overloaded'
  | 'server'
  | 'network'
  | 'stream'
  | 'aborted'
  | 'script'
  /** A model setting the model does not accept (a thinking mode, an effort), found before any call. */
  | 'config'
  /** The conversation does not fit the model's context window (the API said "prompt is too long"). */
  | 'context_window';

export class ModelError extends Error {
  override readonly name = 'ModelError';
  constructor(
    readonly kind: ModelErrorKind,
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isAbort(error: unknown): boolean {
  return error instanceof ModelError && error.kind === 'aborted';
}
