/**
 * The names of the tools in the catalog (catalog.ts), in its order, without the tools: the CLI
 * checks a role's allow-list with these, and importing every tool (the shell parser, notebooks,
 * language servers…) would cost each `orca` command a third of a second. catalog.ts checks at
 * load that its tools carry exactly these names.
 */
export const CATALOG_TOOL_NAMES = [
  'Read',
  'Edit',
  'Write',
  'NotebookEdit',
  'Glob',
  'Grep',
  'LSP',
  'Bash',
  'Skill',
  'TaskCreate',
  'TaskUpdate',
  'TaskList',
  'Remember',
] as const;
