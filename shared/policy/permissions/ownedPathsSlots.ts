import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { AgentSession, StopCheck } from '../../core/loop/session.js';
import type { CheckedCall, PostToolUseOutcome, ToolPipelineSlots } from '../../core/tool/pipeline.js';
import { loadDescription, type ToolContext } from '../../core/tool/tool.js';
import { familyOf, pathInput } from '../../core/tool/toolFacts.js';
import type { ChangeRefusal, OwnedPaths } from './ownedPaths.js';
import type { WatchFindings, WorktreeWatch } from './worktreeWatch.js';

const CHANGE_REFUSALS = loadDescription(import.meta.url, './changeRefusals.md');
const REPORT_REFUSED = loadDescription(import.meta.url, './reportRefusedChanges.md');

export interface OwnedPathsGuard {
  wrap(slots: ToolPipelineSlots): ToolPipelineSlots;
  /** Refuses a Report while changes the agent must undo remain (and tells it what the host put back). */
  stopCheck: StopCheck;
  /** The watch's last look at the whole worktree, while it tells the tree as it is (WorktreeWatch.lastStatus). */
  lastStatus(): string | undefined;
  /**
   * Told once the session's sandbox is known: whether nothing a command call runs can write the
   * user's checkout (commandsConfined). Until then, and when not, the checkout is looked at after
   * every call.
   */
  confineCommands(confined: boolean): void;
  /**
   * What the look of the Report's stop check found changed, when the Report passed that check and
   * no call ran since (else undefined): the commit may take it where reportLook.ts says it holds.
   */
  reportChanges(): readonly string[] | undefined;
  /**
   * Told how to know, at the Report, whether nothing but the agent's calls can have written the
   * worktree (reportLook.ts): then the Report's look takes the last call's git status again.
   */
  quietBesideCalls(quiet: () => boolean): void;
  /** Resolves once the watch's baseline of the user's checkout is taken (WorktreeWatch.ready): whatever could write it waits for this. */
  checkoutReady(): Promise<void>;
}

/**
 * Whether a command call (Bash) cannot change the user's checkout, so the look at the checkout
 * after it can wait for the next look (the next call of another kind, or the Report's, which
 * always looks, from the same baseline: whatever changed there is still named). The checkout
 * look after every call names what agent code wrote there; here agent code cannot write there:
 *
 * - the command runs in the sandbox (bwrap, sandbox-exec: `sandboxed`), whose policy
 *   (core/sandbox/agentPolicy.ts) makes only the worktree and a private /tmp writable and the
 *   checkout read-only or hidden, for the command and everything it starts, in the background too;
 * - neither of those writable folders holds the checkout, nor lies inside it;
 * - no hook runs on the host around the call (none configured, or hooks sandboxed too: `--sandbox
 *   required`): a hook is the user's program, fed the agent's input;
 * - no MCP server runs for the session: a server runs on the host, and what an earlier call asked
 *   of it may still be going on while a command runs;
 * - the agent is orca's own loop: an external agent's process runs beside the calls, in a
 *   sandbox of its own (workers/agents/), and is looked after as before.
 *
 * A host-side file tool (Edit, Write) is still followed by a look, unless nothing else can write
 * at all (fileToolLookWaits): it writes on the host, to a path checked inside the worktree, and a
 * link swapped in by a command running in the background could lead that write out; so is every
 * other tool (an MCP server may run on the host).
 */
export function commandsConfined(facts: {
  sandboxed: boolean;
  writable: readonly string[];
  checkout: string | undefined;
  hostHooks: boolean;
  mcpServers: boolean;
  externalAgent: boolean;
}): boolean {
  const { checkout } = facts;
  if (!facts.sandboxed || facts.hostHooks || facts.mcpServers || facts.externalAgent) return false;
  if (checkout === undefined) return true;
  const real = (dir: string) => {
    try {
      return realpathSync(dir);
    } catch {
      return path.resolve(dir); // not there yet: as named
    }
  };
  const within = (child: string, parent: string) => {
    const relative = path.relative(real(parent), real(child));
    return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
  };
  return facts.writable.every((dir) => !within(dir, checkout) && !within(checkout, dir));
}

/**
 * Whether the look after a host-side file tool's call (Edit, Write) may wait for the end of the
 * model's turn, when every call of it has run (PostToolBatch), the worktree's and the user's
 * checkout's alike (the checkout's then waits on for the Report's, which always looks from the
 * same baseline, so whatever changed there is still named). It may when nothing but the agent's
 * own calls can write anywhere (`quiet`: reportLook.ts, reportLookHolds): the tool wrote one path
 * it resolved inside the worktree (links followed) and that the owned-paths check allowed before
 * it ran, links leading out were removed by the look after the call that made them, and no
 * process of the session outlives its call (bwrap's pid namespace), runs beside the calls (no MCP
 * or language server, an own loop) or around them (no hook) to swap a link under it or write
 * anything else: the look right after it could find nothing to act on. A turn of several edits is
 * then looked at once; a command call in the same turn is looked after as always, and a check's
 * starting tree asks git itself (the last look no longer tells the tree: WorktreeWatch.wroteUnlooked).
 * Any other tool is looked after at once.
 */
export function fileToolLookWaits(facts: { fileTool: boolean; quiet: boolean }): boolean {
  return facts.fileTool && facts.quiet;
}

/**
 * Owned and guarded paths held by the host, on what changes rather than on a command's words: a
 * file tool aimed outside the owned paths is refused before it runs, and after every call of a
 * tool that runs commands (Bash) and every other call that may write, the worktree is compared
 * with its start (worktreeWatch.ts).
 */
export function ownedPathsGuard(
  owned: OwnedPaths,
  watch: WorktreeWatch,
  start: string,
  /** Told when the user's Claude Code or git configuration changed during a call: the run must not go on. */
  onStopRun: (reason: string) => void = () => {},
): OwnedPathsGuard {
  const fill = (template: string, items: ChangeRefusal[]) =>
    template
      .replace('{items}', items.map((item) => `- ${item.path}: ${item.reason}`).join('\n'))
      .replaceAll('{start}', start.slice(0, 12))
      .replace('{owned}', owned.describe());
  let confined = false;
  let reportLook: readonly string[] | undefined;
  let quiet = () => false;
  const looks = callLooks(watch, { quiet: () => quiet(), confined: () => confined }, (ctx, when, found) => {
    if (found.stopRun) onStopRun(found.stopRun);
    const items = [...found.reverted, ...found.toUndo, ...found.outside];
    if (items.length === 0) return undefined;
    announce(ctx, when, found);
    return fill(CHANGE_REFUSALS, items);
  });
  return {
    lastStatus: () => watch.lastStatus(),
    reportChanges: () => reportLook,
    checkoutReady: () => watch.ready(),
    quietBesideCalls: (value) => {
      quiet = value;
    },
    confineCommands: (value) => {
      confined = value;
    },
    wrap: (slots) => ({
      ...slots,
      async permission(call, pre, ctx) {
        // A call after the Report's look (a refused Report goes on): that look no longer tells the tree.
        reportLook = undefined;
        // No call runs before the checkout's baseline is taken: what it wrote there would be in it.
        await watch.ready();
        const reason = ownedPathsRefusal(owned, call, ctx);
        if (reason !== undefined) return { allowed: false, reason };
        return slots.permission(call, pre, ctx);
      },
      async postToolUse(call, output, ctx) {
        reportLook = undefined;
        const outcome = await slots.postToolUse(call, output, ctx);
        const target = editTarget(call, ctx);
        // A guarded file a file tool was allowed to write (an allow rule named it, the task names it) stays as it left it.
        if (target !== undefined) watch.admit(target);
        return noted(outcome, await looks.afterCall(call, ctx));
      },
      async postToolUseFailure(call, error, ctx) {
        reportLook = undefined;
        const outcome = await slots.postToolUseFailure(call, error, ctx);
        return noted(outcome, await looks.afterCall(call, ctx));
      },
      async postToolBatch(calls, ctx) {
        const outcome = slots.postToolBatch ? await slots.postToolBatch(calls, ctx) : {};
        const note = await looks.afterTurn(ctx);
        return note ? { ...outcome, additionalContext: [...(outcome.additionalContext ?? []), note] } : outcome;
      },
    }),
    stopCheck: {
      async beforeStop(session: AgentSession, info) {
        reportLook = undefined;
        if (info.reason !== 'report') return undefined;
        // Every call that may write was looked after; where nothing else writes, the last of those looks still tells the tree.
        const found = await watch.check({ ranCode: true, ...(quiet() ? { sinceLastLook: 'unchanged' as const } : {}) });
        if (found.stopRun) onStopRun(found.stopRun);
        const items = [...found.reverted, ...found.toUndo];
        if (items.length > 0 || found.outside.length > 0) announce(session.toolContext, 'before the Report', found);
        if (items.length > 0) return fill(REPORT_REFUSED, items);
        reportLook = watch.lastChanges();
        return undefined;
      },
    },
  };
}

/**
 * The watch's looks after an agent's calls: after each call that may write, at once, but for a
 * file tool's where nothing beside the calls writes, which waits for the end of the turn
 * (fileToolLookWaits). `refused` turns what a look found into the note for the model, if any.
 */
function callLooks(
  watch: WorktreeWatch,
  facts: { quiet: () => boolean; confined: () => boolean },
  refused: (ctx: ToolContext, when: string, found: WatchFindings) => string | undefined,
) {
  let atTurnEnd = false;
  return {
    async afterCall(call: CheckedCall, ctx: ToolContext): Promise<string | undefined> {
      // A command judged read-only by its words may still write: only the worktree tells.
      const ranCode = familyOf(call.tool) === 'run';
      if (!ranCode && call.readOnly) return undefined;
      if (!ranCode && fileToolLookWaits({ fileTool: familyOf(call.tool) === 'edit', quiet: facts.quiet() })) {
        atTurnEnd = true;
        watch.wroteUnlooked();
        return undefined;
      }
      // Whatever a file tool wrote earlier in the turn, this look sees too.
      atTurnEnd = false;
      // After a command the look at the user's checkout may wait for the Report's (commandsConfined).
      return refused(ctx, `after ${call.tool.name}`, await watch.check({ ranCode, checkout: !(ranCode && facts.confined()) }));
    },
    /** The look a file tool's call left for the end of the turn, if one did; the checkout's waits on for the Report's. */
    async afterTurn(ctx: ToolContext): Promise<string | undefined> {
      if (!atTurnEnd) return undefined;
      atTurnEnd = false;
      return refused(ctx, 'after the turn', await watch.check({ ranCode: false, checkout: false }));
    },
  };
}

/** The after-call outcome with the watch's note added, when it has one. */
function noted(outcome: PostToolUseOutcome, note: string | undefined): PostToolUseOutcome {
  return note ? { ...outcome, notes: [...(outcome.notes ?? []), note] } : outcome;
}

/** Why a file tool's call aimed outside the owned paths is refused (said on the event stream too); undefined when it may go on. */
function ownedPathsRefusal(owned: OwnedPaths, call: CheckedCall, ctx: ToolContext): string | undefined {
  const target = editTarget(call, ctx);
  if (target === undefined) return undefined;
  const refusal = owned.refusal(target, true);
  if (!refusal) return undefined;
  const reason =
    refusal.kind === 'not_owned'
      ? `${target} is outside the paths this task owns (${owned.describe()}); change only files inside them, and name anything else the task needs in your Report's unresolved`
      : `${refusal.reason}, and this task's paths (${owned.describe()}) do not name it`;
  ctx.emit({ type: 'permission', tool: call.tool.name, decision: 'deny', by: 'owned-paths', reason });
  return reason;
}

/** The workspace-relative file an editing tool's call writes; undefined for other tools, or a path outside (the tool refuses it). */
function editTarget(call: CheckedCall, ctx: ToolContext): string | undefined {
  if (familyOf(call.tool) !== 'edit') return undefined;
  const given = pathInput(call.tool, call.input);
  if (given === undefined) return undefined;
  try {
    const real = ctx.workspace.resolve(given, 'write');
    return ctx.workspace.contains(real) ? ctx.workspace.relative(real) : undefined;
  } catch {
    return undefined; // Outside the workspace: the tool and the policy refuse it with their own reason.
  }
}

/** The refusals on the run's event stream too, where people watching see them: one line each. */
function announce(ctx: ToolContext, when: string, found: WatchFindings): void {
  const lines = [
    ...found.reverted.map((item) => `put back ${item.path}: ${item.reason}`),
    ...found.toUndo.map((item) => `left for the agent to undo ${item.path}: ${item.reason}`),
    ...found.outside.map((item) => `outside the worktree ${item.path}: ${item.reason}`),
  ];
  ctx.emit({ type: 'notice', level: 'warn', message: `changes refused ${when}:\n${lines.join('\n')}` });
}
