import type { Extra } from '../compaction/requestView.js';
import { describeRule, type Rule, ruleMatches } from '../instructions/rules.js';

/**
 * The conditional rules of one session (rules.ts): a successful Read of a file a rule's `paths`
 * match triggers it; it is shown on the newest user message before the next model call, once
 * per session, and stays in force afterwards (an autocompaction puts it back).
 */
export class ConditionalRules {
  private readonly pending: Array<{ rule: Rule; trigger: string; file: string }> = [];
  /** The rules shown since the last `takeShown`, with the file that triggered each. */
  private readonly justShown: Array<{ rule: Rule; file: string }> = [];
  /** Rule file → the text it was shown as. */
  private readonly injected = new Map<string, string>();

  constructor(private readonly rules: readonly Rule[]) {}

  /** A Read of `file` (absolute) succeeded; `trigger` is how the file is named to the model. */
  noteRead(file: string, trigger: string): void {
    for (const rule of this.rules) {
      if (this.injected.has(rule.file) || this.pending.some((pending) => pending.rule === rule)) continue;
      if (ruleMatches(rule, file)) this.pending.push({ rule, trigger, file });
    }
  }

  /** The rules triggered since the last call, as blocks to attach; from now on they count as shown. */
  takeTriggered(): Extra[] {
    return this.pending.splice(0).map(({ rule, trigger, file }) => {
      this.justShown.push({ rule, file });
      const text = `<system-reminder>\n${describeRule(rule, trigger)}\n</system-reminder>`;
      this.injected.set(rule.file, text);
      return { kind: 'rule', block: { type: 'text', text } };
    });
  }

  /** The rules taken since the last call, and the file that triggered each (for the InstructionsLoaded hooks). */
  takeShown(): Array<{ rule: Rule; file: string }> {
    return this.justShown.splice(0);
  }

  /** The rules shown so far, as shown. */
  shown(): string[] {
    return [...this.injected.values()];
  }
}
