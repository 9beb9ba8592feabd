import type { AgentSession } from '../../core/loop/session.js';
import type { Message } from '../../core/model/message.js';
import type { SystemBlock } from '../../core/model/model.js';
import type { SkillLibrary } from '../instructions/skills.js';
import { autocompact, type CompactHook, type CompactTrigger } from './autocompact.js';
import type { CompactionConfig } from './compactionConfig.js';
import { forgetHiddenReads } from './forgetReads.js';
import { buildView, type ViewDecisions } from './requestView.js';

export interface AutocompactAttemptInput {
  session: AgentSession;
  trigger: CompactTrigger;
  decisions: ViewDecisions;
  system: SystemBlock[];
  library: SkillLibrary;
  /** Conditional rules shown so far, as shown: they stay in force. */
  injectedRules: string[];
  /** The view as it would be sent now, its size, and the threshold it reached. */
  view: Message[];
  tokens: number;
  threshold: number;
  measure(view: Message[]): number;
  /** Why it runs when the thresholds did not ask for it (the API said the conversation does not fit). */
  reactive?: string;
}

/**
 * Autocompaction's bookkeeping for one session (autocompact.ts does the compaction): a kept
 * result goes into the view decisions and the file state, every attempt is reported as a
 * `compaction` event, and failures in a row are counted (a result still over the threshold
 * counts as one) until, at `maxAutocompactFailures`, autocompaction is off for the session.
 */
export class AutocompactAttempts {
  private failures = 0;
  private disabled = false;
  /** Files the last autocompaction showed again: they count as seen. */
  private shownFiles?: Set<string>;
  private lastFailure?: string;

  constructor(
    private readonly config: CompactionConfig,
    private readonly options: { requiredChecks?: string[]; onCompact?: CompactHook },
  ) {}

  get off(): boolean {
    return this.disabled;
  }

  get visibleFiles(): ReadonlySet<string> | undefined {
    return this.shownFiles;
  }

  /** Why the last attempt failed. */
  get failure(): string | undefined {
    return this.lastFailure;
  }

  /** Compacts when it can; returns the new view and its size, or undefined when it failed. */
  async attempt(input: AutocompactAttemptInput): Promise<{ view: Message[]; tokens: number } | undefined> {
    const { session, trigger, decisions, tokens, threshold, measure } = input;
    const result = await autocompact({
      session,
      trigger,
      system: input.system,
      view: input.view,
      config: this.config,
      restoreBudget: Math.min(this.config.restoreTotalTokens, Math.floor(threshold / 4)),
      requiredChecks: this.options.requiredChecks,
      library: input.library,
      injectedRules: input.injectedRules,
      onCompact: this.options.onCompact,
      tokensBefore: tokens,
      measure: (head, keepFrom) => measure(buildView(session.messages, { ...decisions, compacted: { head, keepFrom } })),
    });
    const emit = session.toolContext.emit;
    const because = input.reactive ? `reactive (${input.reactive}): ` : '';
    if (!result.ok) {
      this.failures += 1;
      this.lastFailure = result.reason;
      emit({
        type: 'compaction',
        level: 'autocompact_failed',
        tokens_before: tokens,
        tokens_after: tokens,
        detail: because + result.reason,
      });
      this.disableAfterFailures(emit, tokens);
      return undefined;
    }
    decisions.compacted = { head: result.head, keepFrom: result.keepFrom };
    this.shownFiles = result.visibleFiles;
    forgetHiddenReads(session.fileState, result.visibleFiles);
    const compacted = buildView(session.messages, decisions);
    const after = measure(compacted);
    // Smaller is kept, but one still over the threshold would only compact again next call: it
    // counts towards the failures that turn autocompaction off, so it cannot loop.
    const stillOver = after >= threshold;
    this.failures = stillOver ? this.failures + 1 : 0;
    const what = `${because}${trigger}: ${result.keepFrom < session.messages.length ? 'history before the last exchange' : 'the whole history'} replaced by a hand-off summary; ${result.visibleFiles.size} recent file(s) shown`;
    emit({
      type: 'compaction',
      level: 'autocompact',
      tokens_before: tokens,
      tokens_after: after,
      detail: stillOver ? `${what}; still over the threshold of ${Math.round(threshold)} tokens, so it counts as a failed attempt` : what,
    });
    this.disableAfterFailures(emit, after);
    return { view: compacted, tokens: after };
  }

  private disableAfterFailures(emit: AgentSession['toolContext']['emit'], tokens: number): void {
    if (this.failures < this.config.maxAutocompactFailures) return;
    this.disabled = true;
    emit({
      type: 'compaction',
      level: 'autocompact_disabled',
      tokens_before: tokens,
      tokens_after: tokens,
      detail: `autocompaction failed ${this.failures} times in a row and is off for the rest of this session`,
    });
  }
}
