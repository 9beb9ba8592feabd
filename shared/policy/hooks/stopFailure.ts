import type { StopFailureKind } from './hookInput.js';

/**
 * Claude Code's name for why a model call failed, read from orca's end detail
 * (`model call failed: 429 …`). Claude Code tells these apart from the API's status; orca has
 * only the message, so anything it cannot place is `unknown`.
 */
export function stopFailureKind(detail: string): StopFailureKind {
  const text = detail.toLowerCase();
  if (/\b429\b|rate.?limit/.test(text)) return 'rate_limit';
  if (/\b40[13]\b|authentication|api key|permission_error/.test(text)) return 'authentication_failed';
  if (/billing|credit balance/.test(text)) return 'billing_error';
  if (/max_tokens|max_output_tokens|output limit/.test(text)) return 'max_output_tokens';
  if (/\b400\b|invalid_request/.test(text)) return 'invalid_request';
  if (/\b5\d\d\b|overloaded|server error|api_error/.test(text)) return 'server_error';
  return 'unknown';
}

/** Whether a session's end was a model call failing: the case Claude Code fires StopFailure for. */
export function isModelFailure(reason: string, detail: string | undefined): boolean {
  return reason === 'error' && (detail ?? '').startsWith('model call failed');
}
