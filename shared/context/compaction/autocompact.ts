import type { AgentSession } from '../../core/loop/session.js';
import type { Message, TextBlock } from '../../core/model/message.js';
import type { SystemBlock } from '../../core/model/model.js';
import { estimateMessagesTokens } from '../../core/model/tokenEstimate.js';
import { addUsage } from '../../core/model/usage.js';
import { resultsKind } from '../../core/tool/toolFacts.js';
import type { SkillLibrary } from '../instructions/skills.js';
import { collectCheckEvidence, renderCheckEvidence } from './checkEvidence.js';
import type { CompactionConfig } from './compactionConfig.js';
import { localHandoffProse, missingSections, modelHandoffProse, renderHandoff } from './handoff.js';
import { restoreAfterCompaction } from './postCompactRestore.js';
import { filePathOf, toolCallsIn } from './toolCalls.js';

/**
 * Level 5, autocompact: the history is replaced, in the view, by a hand-off summary (handoff.ts)
 * with the host's evidence sections, followed by what is put back (postCompactRestore.ts). The
 * last exchange (the last assistant message and the results it got, which the model has not seen
 * yet) stays as it is when it is at most `keepLastExchangeTokens`; when it is itself the bulk it
 * is summarised too, and the files it read come back capped like the others. Either way every
 * tool_use in the view keeps its result. PreCompact and PostCompact hooks run around it through
 * `onCompact`.
 *
 * It fails, changing nothing, when there is nothing before the last exchange, when a PreCompact
 * hook blocks it, when the model's summary call fails or leaves out a section, or when the result
 * would not be smaller than what it replaces. autocompactAttempts.ts
 * counts failures in a row and turns autocompaction off after `maxAutocompactFailures`.
 */
export type CompactTrigger = 'auto' | 'manual';

export interface CompactHookInfo {
  trigger: CompactTrigger;
  session: AgentSession;
  /** PreCompact: instructions for the summariser given so far. */
  customInstructions?: string;
  /** PostCompact: the hand-off text that replaced the history. */
  summary?: string;
}

export interface CompactHookOutcome {
  /** PreCompact only: the compaction does not happen, for this reason. */
  block?: string;
  /** PreCompact only: extra instructions for the summariser. */
  instructions?: string;
}

/** How the hooks layer plugs in: called with 'pre' before and 'post' after each autocompaction. */
export type CompactHook = (
  phase: 'pre' | 'post',
  info: CompactHookInfo,
) => Promise<CompactHookOutcome | undefined> | CompactHookOutcome | undefined;

export interface AutocompactInput {
  session: AgentSession;
  trigger: CompactTrigger;
  system: SystemBlock[];
  /** The view as it would be sent now (what a model summariser reads). */
  view: Message[];
  config: CompactionConfig;
  /** Tokens the restored files may take in all. */
  restoreBudget: number;
  requiredChecks?: readonly string[];
  library: SkillLibrary;
  /** Conditional rules injected so far, as shown: they stay in force. */
  injectedRules: string[];
  onCompact?: CompactHook;
  tokensBefore: number;
  /** The size of the view this compaction would give. */
  measure(head: TextBlock[], keepFrom: number): number;
}

export type AutocompactResult =
  | { ok: true; head: TextBlock[]; keepFrom: number; summary: string; tokensAfter: number; visibleFiles: Set<string> }
  | { ok: false; reason: string };

export async function autocompact(input: AutocompactInput): Promise<AutocompactResult> {
  const { session } = input;
  const messages = session.messages;
  const lastAssistant = messages.findLastIndex((message) => message.role === 'assistant');
  if (lastAssistant <= 0) return { ok: false, reason: 'there is nothing to summarise yet: the model has not answered once' };
  // The last exchange stays as it is unless it is itself the bulk (then files come back capped).
  const keepIndex =
    estimateMessagesTokens(messages.slice(lastAssistant)) <= input.config.keepLastExchangeTokens ? lastAssistant : messages.length;

  const pre = (await input.onCompact?.('pre', { trigger: input.trigger, session, customInstructions: '' })) ?? undefined;
  if (pre?.block) return { ok: false, reason: `a PreCompact hook blocked it: ${pre.block}` };

  const evidence = collectCheckEvidence({
    ledger: session.ledger.all(),
    messages,
    root: session.workspace.root,
    sessionDir: session.toolContext.session.dir,
    requiredChecks: input.requiredChecks,
  });
  const prose = session.model.scripted ? await localProse(input, keepIndex, evidence) : await modelProse(input, pre?.instructions);
  if (typeof prose !== 'string') return prose;

  const summary = renderHandoff(prose, renderCheckEvidence(evidence));
  const restored = await restoredFiles(input, messages.slice(keepIndex));
  const head: TextBlock[] = [{ type: 'text', text: summary }, ...restored.blocks];
  const tokensAfter = input.measure(head, keepIndex);
  if (tokensAfter >= input.tokensBefore) {
    return {
      ok: false,
      reason: `the compacted view (${tokensAfter} tokens) would not be smaller than the current one (${input.tokensBefore})`,
    };
  }
  await input.onCompact?.('post', { trigger: input.trigger, session, summary });
  return { ok: true, head, keepFrom: keepIndex, summary, tokensAfter, visibleFiles: restored.shownFiles };
}

/** The Scripted model's hand-off, written by the host from the history before `keepIndex`. */
async function localProse(input: AutocompactInput, keepIndex: number, evidence: ReturnType<typeof collectCheckEvidence>): Promise<string> {
  const { session } = input;
  const tasks = session.toolContext.services.taskList?.store;
  const open = tasks ? (await tasks.list()).filter((task) => !/^(?:completed|deleted|cancelled)$/.test(task.status)) : undefined;
  return localHandoffProse({
    messages: session.messages.slice(0, keepIndex),
    ledger: session.ledger.all(),
    root: session.workspace.root,
    sessionDir: session.toolContext.session.dir,
    evidence,
    pendingTasks: open?.map((task) => `#${task.id} [${task.status}] ${task.subject}`),
    skillsInUse: input.library.inUse().map((skill) => skill.name),
  });
}

/** The model's hand-off, its call charged to the session; a failure, or a section left out, as the reason it failed. */
async function modelProse(input: AutocompactInput, extraInstructions: string | undefined): Promise<string | { ok: false; reason: string }> {
  const { session } = input;
  let written: Awaited<ReturnType<typeof modelHandoffProse>>;
  try {
    written = await modelHandoffProse(
      session.model,
      {
        system: input.system,
        view: input.view,
        tools: session.registry.specs(),
        maxTokens: Math.min(session.limits.maxOutputTokens, 20_000),
        extraInstructions,
      },
      session.signal,
    );
  } catch (error) {
    return { ok: false, reason: `the summary call failed: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (written.usage) {
    const cost = session.model.cost(written.usage);
    session.usage = addUsage(session.usage, written.usage);
    session.costUsd += cost;
    session.toolContext.emit({
      type: 'usage',
      turn: session.turns,
      usage: written.usage,
      cost_usd: cost,
      total: session.usage,
      total_cost_usd: session.costUsd,
    });
  }
  const missing = missingSections(written.prose);
  if (missing.length > 0) return { ok: false, reason: `the model's summary left out ${missing.map((title) => `"${title}"`).join(', ')}` };
  return written.prose;
}

/** What is put back after the summary: the files read (but those the kept `tail` still shows), tasks, skills and rules in force. */
function restoredFiles(input: AutocompactInput, tail: Message[]): ReturnType<typeof restoreAfterCompaction> {
  const { session } = input;
  const ledger = session.ledger.all();
  const root = session.workspace.root;
  const stillVisible = new Set(
    toolCallsIn(tail, ledger)
      .filter((call) => resultsKind(call.tool) === 'file-read')
      .map((call) => filePathOf(call, root))
      .filter((file): file is string => file !== undefined),
  );
  return restoreAfterCompaction({
    ledger,
    root,
    stillVisible,
    limits: { files: input.config.restoreFiles, fileTokens: input.config.restoreFileTokens, totalTokens: input.restoreBudget },
    tasks: session.toolContext.services.taskList?.store,
    skills: input.library.inUse(),
    library: input.library,
    rules: input.injectedRules,
  });
}
