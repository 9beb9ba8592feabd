/**
 * The tools that change files. One list, since permission rules (an `Edit(…)` rule), the
 * verification nudge and the check evidence must all mean the same tools by "an edit".
 */
export const EDITING_TOOLS: ReadonlySet<string> = new Set(['Edit', 'Write', 'MultiEdit', 'NotebookEdit']);
