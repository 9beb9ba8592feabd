import type { Message } from '../../core/model/message.js';
import type { SystemBlock, ToolSpec } from '../../core/model/model.js';
import { estimateRequestTokens } from '../../core/model/tokenEstimate.js';
import { totalInputTokens, type Usage } from '../../core/model/usage.js';

/**
 * How big a request is, for the compaction thresholds. The estimate (about four characters a
 * token) is always available; the model's own count of the previous request is better. So once
 * a call has reported usage, the count is that figure plus the estimated change since: the
 * estimate's error on the part already sent is corrected, and only what was added (or removed)
 * is estimated.
 */
export class TokenCounter {
  private last?: { estimate: number; inputBefore: number };

  /** The request's size in tokens, given its estimate and the session's usage so far. */
  count(estimate: number, sessionUsage: Usage): number {
    if (!this.last) return estimate;
    const reported = totalInputTokens(sessionUsage) - this.last.inputBefore;
    // No usage since the last send: the call failed before reporting, so nothing to correct by.
    if (reported <= 0) return estimate;
    return Math.max(0, reported + (estimate - this.last.estimate));
  }

  /** Remembers the request about to be sent, so the next count can use the usage it reports. */
  sent(estimate: number, sessionUsage: Usage): void {
    this.last = { estimate, inputBefore: totalInputTokens(sessionUsage) };
  }
}

export function estimateView(system: SystemBlock[], messages: Message[], tools: ToolSpec[]): number {
  return estimateRequestTokens({ system, messages, tools });
}
