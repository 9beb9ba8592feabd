/**
 * What a tool says about itself besides its schema and its call: everything the layers below the
 * tools (permissions, hooks, compaction, checks) and the roles know about it, set in the tool's
 * own file (docs/tools.md, "What a tool says about itself"). Every fact may be left out; the
 * default named with it is the safe one, and is what a name with no definition gets.
 */
export interface ToolFacts {
  name: string;
  /** The kind of work it does (ToolFamily); default 'other'. */
  family?: ToolFamily;
  /** What a permission rule's specifier is compared with in its calls; without it a specifier has nothing to compare. */
  rule?: RuleSubjectField;
  /**
   * Its results carry text from outside orca (files, command output, anything fetched), which
   * reaches the model fenced and labelled as data. Default true; false for results orca writes.
   */
  untrustedOutput?: boolean;
  /** What its results are, as the host reads them back from the transcript (ToolResults); without it a result is kept whole. */
  results?: ToolResults;
  /** Claude Code's `tool_response` for this tool, made from its `ToolOutput.data`; without it hooks get the data as it is. */
  hookResponse?(data: unknown): Promise<unknown>;
  /** Claude Code's input defaults its hooks see in `tool_input` when the model left them out (Edit's `replace_all: false`). */
  hookInputDefaults?: Readonly<Record<string, unknown>>;
}

/**
 * - `read`: reads files; a `Read(…)` rule covers it, and without a path it reads the workspace.
 * - `edit`: changes files; an `Edit(…)` rule covers it, its path must be inside the workspace and
 *   not guarded, and its calls are the edits checks must come after.
 * - `run`: runs commands on this host; what it does is known only from the command.
 * - `other`: anything else.
 */
export type ToolFamily = 'read' | 'edit' | 'run' | 'other';

/**
 * The input field a rule's specifier names: a path (`Read(src/**)`, matched as a gitignore-style
 * pattern), a value (`Skill(release)`, a wildcard), or a shell command (`Bash(npm test:*)`), whose
 * every part is judged on its own and whose writes are judged as calls of `writesAs`.
 */
export type RuleSubjectField =
  | { kind: 'path'; field: string }
  | { kind: 'value'; field: string }
  | { kind: 'command'; field: string; writesAs: ToolFacts };

/**
 * What a call's result is, for the host reading the transcript and the ledger back (compaction,
 * hand-offs, evidence of checks, path-scoped rules):
 * - `file-read`: a file's content (ReadResultData), the file named by the rule's path field. An
 *   old one is cleared to a line saying to read it again; a partial read or an "unchanged" stub
 *   is dropped once a later whole read shows the file, a failed read once a later one worked; the
 *   file comes back after an autocompaction, and reading it wakes its path's rules.
 * - `file-change`: a change to that file. An old one is cleared to one line; a failed one is
 *   dropped once a later call of the tool on the file worked; a hand-off lists the file as `verb`.
 * - `output`: output the session keeps whole in its results folder; an old one is cleared to a
 *   line naming that file.
 * - `command`: a shell command's run (the command in the rule's command field, BashResultData):
 *   cleared like output, with its exit code, which checks and claims are judged by.
 * - `task-change`: a change to the task list (`taskId`, `status`); a task's stretch from
 *   in_progress to completed may be folded into one line.
 * - `instructions`: instructions the model goes on following (a skill); a stretch holding one is
 *   never folded.
 */
export type ToolResults =
  | { kind: 'file-read' }
  | { kind: 'file-change'; verb: string }
  | { kind: 'output' }
  | { kind: 'command' }
  | { kind: 'task-change' }
  | { kind: 'instructions' };

export function familyOf(tool: ToolFacts | undefined): ToolFamily {
  return tool?.family ?? 'other';
}

export function resultsKind(tool: ToolFacts | undefined): ToolResults['kind'] | undefined {
  return tool?.results?.kind;
}

export function isUntrustedOutput(tool: ToolFacts | undefined): boolean {
  return tool?.untrustedOutput ?? true;
}

/** The path a call names in its rule's path field, as given; undefined for a tool without one. */
export function pathInput(tool: ToolFacts | undefined, input: unknown): string | undefined {
  return tool?.rule?.kind === 'path' ? stringField(input, tool.rule.field) : undefined;
}

/** The shell command a call runs, from its rule's command field; undefined for a tool without one. */
export function commandInput(tool: ToolFacts | undefined, input: unknown): string | undefined {
  return tool?.rule?.kind === 'command' ? stringField(input, tool.rule.field) : undefined;
}

/** The string in one field of a call's input; the input is the model's (or a hook's), so it is checked, not cast. */
export function stringField(input: unknown, field: string): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const value = (input as Record<string, unknown>)[field];
  return typeof value === 'string' ? value : undefined;
}
