import type { ReadFileState } from '../../core/files/readFileState.js';
import type { AgentSession } from '../../core/loop/session.js';
import { resultsKind } from '../../core/tool/toolFacts.js';
import { foldedIndexes, sourceMessages, type ViewDecisions } from './requestView.js';
import { failed, filePathOf, toolCallsIn } from './toolCalls.js';

/**
 * Compaction hides file reads (Read results) from the view; the session's file state must then
 * forget those files, so Edit asks for a fresh Read and that Read shows the file instead of an
 * "unchanged" stub.
 *
 * After microcompact or collapse: files whose every full Read is now hidden from the view must be
 * read again before an edit. `visibleAfterCompaction` (the files the last autocompaction showed
 * again) count as seen.
 */
export function forgetUnseenReads(session: AgentSession, decisions: ViewDecisions, visibleAfterCompaction?: ReadonlySet<string>): void {
  const source = sourceMessages(session.messages, decisions);
  const folded = foldedIndexes(source, decisions);
  const visible = new Set<string>();
  for (const call of toolCallsIn(source, session.ledger.all())) {
    if (
      resultsKind(call.tool) !== 'file-read' ||
      failed(call) ||
      decisions.snipped.has(call.id) ||
      decisions.cleared.has(call.id) ||
      folded.has(call.useIndex)
    )
      continue;
    const file = filePathOf(call, session.workspace.root);
    if (file) visible.add(file);
  }
  for (const file of visibleAfterCompaction ?? []) visible.add(file);
  const read = new Set(
    toolCallsIn(source, session.ledger.all())
      .filter((call) => resultsKind(call.tool) === 'file-read')
      .map((call) => filePathOf(call, session.workspace.root)),
  );
  // Only files read in the part of the transcript the view draws on; older ones were settled by the last autocompaction.
  for (const entry of session.fileState.all()) {
    if (entry.origin === 'read' && read.has(entry.path) && !visible.has(entry.path)) session.fileState.delete(entry.path);
  }
}

/** After an autocompaction: of the files read, only those it still shows stay known. */
export function forgetHiddenReads(fileState: ReadFileState, visible: Set<string>): void {
  for (const entry of fileState.all()) {
    if (entry.origin === 'read' && !visible.has(entry.path)) fileState.delete(entry.path);
  }
}
