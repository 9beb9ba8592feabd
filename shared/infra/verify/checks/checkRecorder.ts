import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type BashResultFields, bashResultFields, type PipelineStage } from '../../../core/tool/bashResultData.js';
import type { CheckedCall, PostToolUseOutcome, ToolPipelineSlots } from '../../../core/tool/pipeline.js';
import type { SessionServices, ToolContext, ToolOutput } from '../../../core/tool/tool.js';
import { commandInput, resultsKind, type ToolFacts } from '../../../core/tool/toolFacts.js';
import { isCheckCommand, normalizeCommand } from '../evidence/checkCommand.js';
import type { CheckEvidence, TargetObservation } from '../evidence/evidence.js';
import { firstStageRun } from '../evidence/pipelineCheck.js';
import { watchTargets } from '../evidence/portOwner.js';
import { saveManifest, treeSnapshot } from '../evidence/treeHash.js';
import { targetPortsOf } from '../gates/target.js';
import { countTests } from './checkRun.js';
import { stripColour } from './colourlessLog.js';

/**
 * The host's evidence of the checks an AGENT runs: a wrapper around the tool pipeline's slots
 * that, for every Bash call whose command is a check (checkCommand.ts) or one of the task's
 * required checks (or a pipeline that starts with one: `npm test 2>&1 | tail`, recorded as a run
 * of `npm test` with its own exit code),
 * - hashes the workspace's tree once the call is allowed, just before it runs;
 * - watches the ports the command talks to (gates/target.ts) while it runs;
 * - afterwards keeps its exit code, duration, whole output (the Bash result, or the files it
 *   spilled to) and test counts, as `CheckEvidence` with `ran_by: 'agent'`.
 * A call that times out, is aborted or fails has no exit code and is kept as such. The Bash tool
 * itself is not changed: this sees what the model sees, plus the tree and the clock.
 *
 * The evidence is what a worker report's claims are gated on (workerGates.ts) and what the
 * verification nudge looks for. A workspace outside git has no tree hash: its evidence is
 * recorded with `tree: "none: …"` and can never be current.
 */
interface Pending {
  tree: string;
  manifest?: string;
  startedAt: number;
  ports: number[];
  watcher: { stop(): TargetObservation[] };
}

export class CheckRecorder {
  private readonly recorded: CheckEvidence[] = [];
  private readonly pending = new Map<string, Pending>();
  private sequence = 0;
  private readonly alsoRecord: ReadonlySet<string>;

  private readonly unchangedLook?: () => string | undefined;

  /**
   * `alsoRecord`: commands recorded even when they do not look like checks (a task's required checks).
   * `unchangedLook`: the host watch's last `git status` of the worktree (porcelain v2, `-z`, every
   * untracked file: worktreeWatch.ts `lastStatus`) when nothing can have written the worktree
   * since it was taken (reportLook.ts), else undefined: the tree a check starts on is then hashed
   * from it instead of asking git again.
   */
  constructor(options: { alsoRecord?: readonly string[]; unchangedLook?: () => string | undefined } = {}) {
    this.alsoRecord = new Set((options.alsoRecord ?? []).map(normalizeCommand));
    this.unchangedLook = options.unchangedLook;
  }

  /** Before it runs: whether it looks like a check, or may run a required one (`npm test 2>&1 | tail` starts with `npm test`). */
  private records(command: string): boolean {
    const normalized = normalizeCommand(command);
    return isCheckCommand(command) || [...this.alsoRecord].some((required) => normalized.startsWith(required));
  }

  /** After it ran: the check it is evidence of, the first stage of a pipeline when that stage is a check (pipelineCheck.ts). */
  private checkRun(command: string, data: BashResultFields): PipelineStage | undefined {
    const stage = firstStageRun(command, data);
    if (!stage) return undefined;
    return isCheckCommand(stage.command) || this.alsoRecord.has(normalizeCommand(stage.command)) ? stage : undefined;
  }

  /** The evidence so far, oldest first. */
  evidence(): readonly CheckEvidence[] {
    return this.recorded;
  }

  /** Registers this recorder where the nudge and the gates look for it. */
  attachTo(services: SessionServices): this {
    services.checks = this;
    return this;
  }

  wrap(inner: ToolPipelineSlots): ToolPipelineSlots {
    return {
      ...inner,
      permission: async (call, pre, ctx) => {
        const outcome = await inner.permission(call, pre, ctx);
        const command = commandOf(call.tool, call.input);
        if (outcome.allowed && command !== undefined && this.records(command)) this.pending.set(call.id, await this.start(command, ctx));
        return outcome;
      },
      postToolUse: async (call, output, ctx): Promise<PostToolUseOutcome> => {
        await this.finish(call, ctx, { output });
        return inner.postToolUse(call, output, ctx);
      },
      postToolUseFailure: async (call, error, ctx): Promise<PostToolUseOutcome> => {
        await this.finish(call, ctx, { error });
        return inner.postToolUseFailure(call, error, ctx);
      },
    };
  }

  private async start(command: string, ctx: ToolContext): Promise<Pending> {
    const dir = this.dir(ctx);
    const stem = path.join(dir, `${Date.now()}-${++this.sequence}`);
    let tree: string;
    let manifest: string | undefined;
    try {
      const looked = this.unchangedLook?.();
      const snapshot = await treeSnapshot(ctx.workspace.root, looked === undefined ? undefined : { statusV2: looked });
      manifest = `${stem}.tree.txt`;
      await saveManifest(snapshot, manifest);
      tree = snapshot.digest;
    } catch (error) {
      tree = `none: ${error instanceof Error ? error.message : String(error)}`;
    }
    const ports = targetPortsOf({ command }, { ...process.env, ...ctx.shell.env });
    return { tree, manifest, startedAt: Date.now(), ports, watcher: watchTargets(ports) };
  }

  private async finish(call: CheckedCall, ctx: ToolContext, result: { output?: ToolOutput; error?: string }): Promise<void> {
    const { id } = call;
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    const finishedAt = Date.now();
    const targets = pending.watcher.stop();
    const command = commandOf(call.tool, call.input) ?? '';
    const data = bashResultFields(result.output?.data);
    // The result as the model saw it holds stdout, then `[stderr]` and stderr; a stream that
    // outgrew memory was spilled whole to a file, which then stands for it.
    const [stdoutShown, stderrShown] = splitStreams(result.output?.content ?? result.error ?? '');
    const stem = path.join(this.dir(ctx), id.replace(/[^A-Za-z0-9_-]/g, '_'));
    const stdoutFile = data.outputFile ?? writeLog(`${stem}.log`, stdoutShown);
    const stderrFile = data.stderrFile ?? (stderrShown !== '' ? writeLog(`${stem}.stderr.log`, stderrShown) : undefined);
    const stage = result.output ? this.checkRun(command, data) : undefined;
    const exitCode = result.output && data.exitCode !== undefined ? (stage?.exitCode ?? data.exitCode) : null;
    const signal = data.signal ?? null;
    const outcome: CheckEvidence['outcome'] = result.output
      ? exitCode !== null
        ? 'exited'
        : 'killed'
      : /timed out/i.test(result.error ?? '')
        ? 'timed_out'
        : /abort/i.test(result.error ?? '')
          ? 'aborted'
          : 'refused';
    this.recorded.push({
      command: stage?.command ?? command,
      ...(stage ? { command_line: command } : {}),
      cwd: ctx.workspace.root,
      tree: pending.tree,
      ...(pending.manifest ? { tree_manifest: pending.manifest } : {}),
      started_at: pending.startedAt,
      finished_at: finishedAt,
      duration_ms: finishedAt - pending.startedAt,
      exit_code: exitCode,
      signal,
      outcome,
      log: stdoutFile,
      ...(stderrFile ? { stderr_log: stderrFile } : {}),
      counts: await countTests(stderrFile ? [stdoutFile, stderrFile] : [stdoutFile], ctx.workspace.root, pending.startedAt),
      target_ports: pending.ports,
      targets,
      ran_by: 'agent',
      tool_use_id: id,
    });
  }

  private dir(ctx: ToolContext): string {
    const dir = path.join(ctx.session.dir, 'checks');
    mkdirSync(dir, { recursive: true });
    return dir;
  }
}

declare module '../../../core/tool/tool.js' {
  interface SessionServices {
    /** The host's evidence of the session's check runs. */
    checks?: CheckRecorder;
  }
}

/** Bash's result text split into its stdout part and its `[stderr]` section. */
function splitStreams(content: string): [string, string] {
  const marker = content.startsWith('[stderr]\n') ? 0 : content.indexOf('\n[stderr]\n');
  if (marker < 0) return [content, ''];
  return [content.slice(0, marker), content.slice(marker + (marker === 0 ? 9 : 10))];
}

/** The output as the model saw it, kept without terminal colour (colourlessLog.ts). */
function writeLog(file: string, text: string): string {
  writeFileSync(file, stripColour(text));
  return file;
}

/** The command a call runs, when its results are a command's run (Bash's); undefined for other tools. */
function commandOf(tool: ToolFacts, input: unknown): string | undefined {
  return resultsKind(tool) === 'command' ? commandInput(tool, input) : undefined;
}
