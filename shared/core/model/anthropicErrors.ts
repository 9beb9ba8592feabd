import type { APIError } from '@anthropic-ai/sdk';
import { loadedAnthropicSdk } from './anthropicSdk.js';
import { ModelError, type ModelErrorKind } from './modelError.js';

/** What an error message needs to name besides the error itself. */
export interface ErrorContext {
  model: string;
  baseURL: string;
  /** How many times the SDK retries a retryable HTTP failure before giving up. */
  maxRetries: number;
  requestTimeoutMs: number;
}

/** Error `type`s the API sends (in an HTTP body or an SSE `error` event) that are worth retrying. */
const RETRYABLE_TYPES = new Set(['overloaded_error', 'api_error', 'rate_limit_error', 'timeout_error']);

export function isRetryableType(type: string | null | undefined): boolean {
  return type != null && RETRYABLE_TYPES.has(type);
}

export function retries(n: number): string {
  return `after ${n} ${n === 1 ? 'retry' : 'retries'}`;
}

/** One line: the API's messages can carry newlines, and a ModelError is printed as one line. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * The kind of an API failure, from its HTTP status and the error `type` in its body. Spend and
 * billing failures come first: the API reports them as 400, 402 or 429, and none of those is
 * helped by waiting.
 */
export type ApiErrorKind = Extract<
  ModelErrorKind,
  'spend_limit' | 'auth' | 'not_found' | 'rate_limit' | 'overloaded' | 'server' | 'bad_request' | 'context_window'
>;

/**
 * How the API says a request is larger than the model's context window: "prompt is too long:
 * 210000 tokens > 200000 maximum", or input and max_tokens together over the limit.
 */
const CONTEXT_WINDOW_MESSAGE =
  /prompt is too long|exceeds? (?:the )?(?:model's )?context (?:window|limit|length)|context (?:window|limit) exceeded/i;

export function kindOf(status: number | undefined, type: string | null, message: string, errorCode: string | null): ApiErrorKind {
  if (
    status === 402 ||
    type === 'billing_error' ||
    /spend_limit|billing/.test(errorCode ?? '') ||
    /credit balance|spend limit|billing/i.test(message)
  ) {
    return 'spend_limit';
  }
  if (status === 401 || status === 403 || type === 'authentication_error' || type === 'permission_error') return 'auth';
  if (status === 404 || type === 'not_found_error') return 'not_found';
  if (status === 429 || type === 'rate_limit_error') return 'rate_limit';
  if (status === 529 || type === 'overloaded_error') return 'overloaded';
  if ((status !== undefined && (status >= 500 || status === 408 || status === 409)) || type === 'api_error' || type === 'timeout_error') {
    return 'server';
  }
  if (status === 413 || CONTEXT_WINDOW_MESSAGE.test(message)) return 'context_window';
  return 'bad_request';
}

/**
 * Whether the SDK retried this response before throwing it: its own rule (client.ts
 * `shouldRetry`), so the message says "after N retries" only when there were some.
 */
function sdkRetried(error: APIError): boolean {
  const header = error.headers?.get('x-should-retry');
  if (header === 'true') return true;
  if (header === 'false') return false;
  const status = error.status ?? 0;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * The one-line ModelError for an API failure. `retried` is how many retries came before it; when
 * undefined, the SDK's own count is used (it retries HTTP failures before the stream starts).
 */
export function apiModelError(error: APIError, context: ErrorContext, retried?: number): ModelError {
  const body = (error.error ?? {}) as { error?: { message?: unknown } };
  const apiMessage = oneLine(error.apiMessage ?? (typeof body.error?.message === 'string' ? body.error.message : error.message));
  const kind = kindOf(error.status, error.type, apiMessage, error.errorCode);
  const what = [error.status, error.type].filter((part) => part != null).join(' ');
  const detail = `(${what}: ${apiMessage})`;
  const after = retried ?? (sdkRetried(error) ? context.maxRetries : 0);
  const tail = after > 0 ? ` ${retries(after)}` : '';
  const messages: Record<ApiErrorKind, string> = {
    auth: `the API key was refused ${detail}: check ANTHROPIC_API_KEY`,
    spend_limit: `the account's spend limit or credit balance stops this request ${detail}`,
    not_found: `model "${context.model}" was not found ${detail}: check ORCA_MODEL or --model`,
    bad_request: `the API rejected the request ${detail}`,
    context_window: `the conversation does not fit the model's context window ${detail}`,
    rate_limit: `rate limited by the API ${detail}${tail}`,
    overloaded: `the API is overloaded ${detail}${tail}`,
    server: `the API failed ${detail}${tail}`,
  };
  return new ModelError(kind, messages[kind], error.status, { cause: error });
}

/** Any failure the SDK throws, as a ModelError with one clear line. */
export function toModelError(error: unknown, context: ErrorContext, signal: AbortSignal): ModelError {
  if (error instanceof ModelError) return error;
  // Until a call imported the SDK, nothing thrown can be one of its errors.
  const sdk = loadedAnthropicSdk();
  if (signal.aborted || (sdk && error instanceof sdk.APIUserAbortError)) {
    return new ModelError('aborted', 'the model call was aborted', undefined, { cause: error });
  }
  if (sdk && error instanceof sdk.APIConnectionTimeoutError) {
    return new ModelError(
      'network',
      `the API at ${context.baseURL} did not answer within ${context.requestTimeoutMs} ms ${retries(context.maxRetries)}`,
      undefined,
      { cause: error },
    );
  }
  if (sdk && error instanceof sdk.APIConnectionError) {
    return new ModelError(
      'network',
      `could not reach the API at ${context.baseURL} ${retries(context.maxRetries)}: ${oneLine(causeChain(error))}`,
      undefined,
      { cause: error },
    );
  }
  if (sdk && error instanceof sdk.APIError) return apiModelError(error, context);
  return new ModelError('stream', `the model call failed: ${oneLine(causeChain(error))}`, undefined, { cause: error });
}

/** "terminated (other side closed)": undici hides the useful part of a failure in `cause`. */
export function causeChain(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  while (current != null && parts.length < 4) {
    const text = current instanceof Error ? current.message : String(current);
    if (text && !parts.includes(text)) parts.push(text);
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.length === 0 ? 'unknown error' : parts[0] + (parts.length > 1 ? ` (${parts.slice(1).join(': ')})` : '');
}
