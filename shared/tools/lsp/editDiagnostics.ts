import type { CheckedCall, PostToolUseOutcome, ToolPipelineSlots } from '../../core/tool/pipeline.js';
import type { ToolContext } from '../../core/tool/tool.js';
import { familyOf, pathInput, resultsKind } from '../../core/tool/toolFacts.js';
import { newErrors, type SeenDiagnostics } from './diagnosticDiff.js';
import { cappedLines, diagnosticLine } from './diagnosticText.js';
import type { LspDocument } from './lspDocument.js';
import type { LanguageServer } from './lspServer.js';
import type { LspService } from './lspService.js';

declare module '../../core/tool/tool.js' {
  interface SessionServices {
    /** What the language servers said about the files this session edited. */
    editDiagnostics?: EditDiagnostics;
  }
}

/** Other open files checked after an edit (the ones that may import the edited file), most recently used first. */
const OTHER_FILES_CHECKED = 8;
/** How long a push server gets to report on the other open files once it reported on the edited one. */
const OTHERS_SETTLE_MS = 300;

/** The state before one edit: the file's diagnostics then, and what was known of the other open files. */
interface Baseline {
  doc: LspDocument;
  server: LanguageServer;
  before: SeenDiagnostics | undefined;
  /** Why `before` is missing (the server did not answer in time, …). */
  problem?: string;
  others: Map<string, Known>;
  /** Other open files the server could not answer for, with why. */
  skipped: string[];
  mark: number;
}

interface Known {
  file: string;
  seen: SeenDiagnostics;
}

/**
 * Diagnostics after every edit. Around each Edit, Write and NotebookEdit call that was allowed to
 * run (one hook point: a wrapper around the pipeline's slots, like the check recorder):
 * - just before it runs, the file as it is on disk goes to its language server and its
 *   diagnostics are taken (the baseline);
 * - after it succeeds, the new text goes to the server, and the result gets the errors that were
 *   not in the baseline, each as `path:line:col message`, capped (diagnosticText.ts); errors that
 *   were there before are not repeated (diagnosticDiff.ts). Other files open in the server (the
 *   ones the agent read or edited, which may import this one) are checked too, against their
 *   diagnostics just before the edit.
 * - A Read of a file with a server (when the session can edit) opens it in the server in the
 *   background, so the server is loaded and the baseline is quick by the time an edit comes.
 * Nothing here refuses or delays an edit beyond the server's deadlines: a server that is missing,
 * fails or is slow is said so in the result, and the edit stands.
 *
 * It also remembers each edited file's errors before the session's first edit of it, for the
 * Report reminder (reportDiagnostics.ts): the errors the agent introduced and left.
 */
export class EditDiagnostics {
  /** The file behind each document this opened in a server (a notebook's is not its path). */
  private readonly files = new Map<string, string>();
  private readonly firstSeen = new Map<string, { file: string; seen: SeenDiagnostics | undefined }>();

  constructor(readonly lsp: LspService) {}

  /** Attaches itself to `services` (where the Report reminder finds it); returns itself. */
  attachTo(services: { editDiagnostics?: EditDiagnostics }): this {
    services.editDiagnostics = this;
    return this;
  }

  wrap(inner: ToolPipelineSlots, options: { warmOnRead: boolean }): ToolPipelineSlots {
    // A baseline, or why none could be had (the file could not be read for its server).
    const baselines = new Map<string, Baseline | string | undefined>();
    return {
      ...inner,
      permission: async (call, pre, ctx) => {
        const outcome = await inner.permission(call, pre, ctx);
        const file = outcome.allowed ? editedFile(call, ctx) : undefined;
        if (file !== undefined) {
          baselines.set(
            call.id,
            await this.before(file, ctx).catch((error: unknown) => `[diagnostics] None for this edit: ${messageOf(error)}`),
          );
        }
        return outcome;
      },
      postToolUse: async (call, output, ctx): Promise<PostToolUseOutcome> => {
        const baseline = baselines.get(call.id);
        baselines.delete(call.id);
        if (!call.readOnly && familyOf(call.tool) !== 'edit') this.lsp.invalidate();
        const notes = typeof baseline === 'string' ? [baseline] : baseline ? await this.after(baseline, ctx) : [];
        notes.unshift(...this.lsp.takeNotes());
        if (options.warmOnRead && resultsKind(call.tool) === 'file-read') this.warm(call, ctx);
        const outcome = await inner.postToolUse(call, output, ctx);
        return notes.length > 0 ? { ...outcome, notes: [...notes, ...(outcome.notes ?? [])] } : outcome;
      },
      postToolUseFailure: async (call, error, ctx) => {
        baselines.delete(call.id);
        // A command that failed may still have written files.
        if (!call.readOnly && familyOf(call.tool) !== 'edit') this.lsp.invalidate();
        return inner.postToolUseFailure(call, error, ctx);
      },
    };
  }

  /** The file's diagnostics as it is now, before an edit, and those of the other open files; undefined when no server serves it. */
  async before(file: string, ctx: ToolContext): Promise<Baseline | undefined> {
    const doc = this.lsp.document(file, ctx, { missingAsEmpty: true });
    if (!doc) return undefined;
    const server = await this.lsp.server(doc.spec, ctx);
    if (!server) return undefined;
    const baseline: Baseline = { doc, server, before: undefined, others: new Map(), skipped: [], mark: server.mark() };
    if (doc.text === '') {
      // A new or empty file has no errors to keep: nothing to ask.
      baseline.before = { text: '', diagnostics: [] };
    } else {
      try {
        await this.sync(server, doc);
        baseline.before = { text: doc.text, diagnostics: await server.diagnostics(doc.path, ctx.signal) };
      } catch (error) {
        baseline.problem = messageOf(error);
      }
    }
    if (baseline.before) baseline.others = await this.othersNow(baseline, ctx);
    if (!this.firstSeen.has(doc.path)) this.firstSeen.set(doc.path, { file, seen: baseline.before });
    baseline.mark = server.mark();
    return baseline;
  }

  /** The notes for an edit's result: the errors it brought, in the file and in the other open files. */
  async after(baseline: Baseline, ctx: ToolContext): Promise<string[]> {
    const { server } = baseline;
    const lines: string[] = [];
    try {
      const doc = this.lsp.document(baseline.doc.file, ctx);
      if (!doc) return [];
      await this.sync(server, doc);
      const after: SeenDiagnostics = { text: doc.text, diagnostics: await server.diagnostics(doc.path, ctx.signal) };
      for (const d of newErrors(baseline.before, after)) lines.push(diagnosticLine(doc.where(d), d));
      lines.push(...(await this.othersAfter(baseline, ctx)));
    } catch (error) {
      return [`[diagnostics] None for this edit: ${messageOf(error)}`];
    }
    const skipped = [...new Set(baseline.skipped)];
    const unchecked = skipped.length > 0 ? [`(other open files not checked: ${skipped.join('; ')})`] : [];
    if (lines.length === 0) return unchecked.map((line) => `[diagnostics] ${line}`);
    const from = server.detail ?? server.spec.label;
    const count = `${lines.length} new error${lines.length === 1 ? '' : 's'}`;
    const caveat = baseline.before
      ? ''
      : ` (the errors from before the edit could not be had: ${baseline.problem}; some of these may have been there already)`;
    return [[`[diagnostics] ${count} after this edit, from ${from}${caveat}:`, ...cappedLines(lines), ...unchecked].join('\n')];
  }

  /**
   * The errors the session brought into the files it edited and that are still there: each edited
   * file as it is on disk now, against its errors before the session's first edit of it. A file
   * whose errors before were not had is left out, as is one whose server is gone.
   */
  async outstanding(ctx: ToolContext): Promise<string[]> {
    const lines: string[] = [];
    for (const [path, first] of this.firstSeen) {
      if (!first.seen) continue;
      const doc = this.lsp.document(first.file, ctx);
      if (!doc || doc.path !== path) continue;
      const server = await this.lsp.server(doc.spec, ctx);
      if (!server) continue;
      await this.sync(server, doc);
      const now: SeenDiagnostics = { text: doc.text, diagnostics: await server.diagnostics(doc.path, ctx.signal) };
      for (const d of newErrors(first.seen, now)) lines.push(diagnosticLine(doc.where(d), d));
    }
    return lines;
  }

  /** The files edited in this session that a server checks. */
  editedFiles(): string[] {
    return [...this.firstSeen.values()].map((entry) => entry.file);
  }

  /**
   * The diagnostics of the other open files as they are now (at most OTHER_FILES_CHECKED, most
   * recently used first): asked for from a tsserver, each re-synced from disk first; from a push
   * server, what it last pushed for the version it has.
   */
  private async othersNow(baseline: Baseline, ctx: ToolContext): Promise<Map<string, Known>> {
    const { server, doc } = baseline;
    const paths = server
      .openDocuments()
      .reverse()
      .filter((path) => path !== doc.path && this.files.has(path))
      .slice(0, OTHER_FILES_CHECKED);
    const found = new Map<string, Known>();
    await Promise.all(
      paths.map(async (path) => {
        const file = this.files.get(path)!;
        if (server.spec.diagnostics === 'tsserver') {
          const other = this.lsp.document(file, ctx);
          if (!other || other.path !== path) return;
          try {
            await this.sync(server, other);
            found.set(path, { file, seen: { text: other.text, diagnostics: await server.diagnostics(path, ctx.signal) } });
          } catch (error) {
            // Left out of the comparison, and said so in the result.
            baseline.skipped.push(`${ctx.workspace.display(file)} (${messageOf(error)})`);
          }
        } else {
          const pushed = server.currentDiagnostics(path);
          const text = server.textOf(path);
          if (pushed && text !== undefined) found.set(path, { file, seen: { text, diagnostics: pushed } });
        }
      }),
    );
    return found;
  }

  /** The new errors in the other open files since the baseline. */
  private async othersAfter(baseline: Baseline, ctx: ToolContext): Promise<string[]> {
    const { server, others } = baseline;
    if (others.size === 0) return [];
    let now: Map<string, Known>;
    if (server.spec.diagnostics === 'tsserver') {
      now = await this.othersNow(baseline, ctx);
    } else {
      now = new Map();
      const pushed = await server.pushedSince([...others.keys()], baseline.mark, OTHERS_SETTLE_MS, ctx.signal);
      for (const [path, diagnostics] of pushed) {
        const text = server.textOf(path);
        if (text !== undefined) now.set(path, { file: others.get(path)!.file, seen: { text, diagnostics } });
      }
    }
    const lines: string[] = [];
    for (const [path, known] of now) {
      const before = others.get(path);
      if (!before) continue;
      const doc = this.lsp.document(known.file, ctx);
      for (const d of newErrors(before.seen, known.seen)) lines.push(diagnosticLine(doc ? doc.where(d) : known.file, d));
    }
    return lines;
  }

  /** Sends `doc`'s text to the server, and remembers which file it is. */
  private async sync(server: LanguageServer, doc: LspDocument): Promise<void> {
    this.files.set(doc.path, doc.file);
    await server.sync(doc.path, doc.languageId, doc.text);
  }

  /** After a Read: the file opened in its server in the background, so the server loads while the model thinks. */
  private warm(call: CheckedCall, ctx: ToolContext): void {
    const file = pathOf(call, ctx);
    if (file === undefined) return;
    const run = async () => {
      const doc = this.lsp.document(file, ctx);
      if (!doc) return;
      const server = await this.lsp.server(doc.spec, ctx);
      if (!server) return;
      await this.sync(server, doc);
      await server.diagnostics(doc.path, ctx.signal);
    };
    run().catch((error: unknown) => {
      if (this.lsp.isClosed || ctx.signal.aborted) return; // the session ended while it warmed up: nothing left to tell
      ctx.emit({
        type: 'notice',
        level: 'info',
        message: `language server warm-up for ${ctx.workspace.display(file)} did not finish: ${messageOf(error)}`,
      });
    });
  }
}

/** The file an editing call changes, resolved as the tool will resolve it; undefined when it is not one, or the path is refused. */
function editedFile(call: CheckedCall, ctx: ToolContext): string | undefined {
  return familyOf(call.tool) === 'edit' ? pathOf(call, ctx) : undefined;
}

/** The file a call names in its rule's path field, resolved in the workspace. */
function pathOf(call: CheckedCall, ctx: ToolContext): string | undefined {
  const given = pathInput(call.tool, call.input);
  if (given === undefined) return undefined;
  try {
    return ctx.workspace.resolve(given, 'read');
  } catch {
    return undefined; // outside the workspace: the tool itself refuses it, with the reason
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
