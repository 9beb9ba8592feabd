import { readFileSync } from 'node:fs';
import type { RoleDefinition } from './role.js';

function prompt(name: string): string {
  return readFileSync(new URL(`./prompts/${name}.md`, import.meta.url), 'utf8').trim();
}

/** What every role but the coordinator looks around with. */
const LOOKING_TOOLS = ['Read', 'Glob', 'Grep', 'LSP', 'Bash', 'Skill'];

/**
 * The five roles orca ships. Read-only roles may still run read-only Bash commands. Only the
 * coordinator and Worker agents may Remember (docs/memory.md): they meet the user's task and its
 * corrections; Explore, Plan and Verification agents report to them instead. Workers keep a task
 * list (TaskCreate, TaskUpdate, TaskList), which is what the verification nudge reads.
 */
export const BUILTIN_ROLES: readonly RoleDefinition[] = [
  {
    name: 'coordinator',
    description: 'Decides what to explore before a run is planned.',
    prompt: prompt('coordinator'),
    tools: ['Read', 'Glob', 'Grep', 'LSP', 'Remember'],
    mode: 'read-only',
    limits: { maxTurns: 12 },
    output: 'coordinator',
    workspace: 'view',
    sandbox: true,
    source: 'builtin',
  },
  {
    name: 'explore',
    description: 'Reads the code to answer questions, with path:line evidence. Changes nothing.',
    prompt: prompt('explore'),
    tools: LOOKING_TOOLS,
    mode: 'read-only',
    limits: { maxTurns: 40 },
    output: 'explore',
    workspace: 'view',
    sandbox: true,
    source: 'builtin',
  },
  {
    name: 'plan',
    description: 'Splits a task into subtasks with owned paths, dependencies and checks. Changes nothing.',
    prompt: prompt('plan'),
    tools: LOOKING_TOOLS,
    mode: 'read-only',
    limits: { maxTurns: 30 },
    output: 'plan',
    workspace: 'view',
    sandbox: true,
    source: 'builtin',
  },
  {
    name: 'worker',
    description: 'Implements one subtask in its own worktree and proves it with checks it runs.',
    prompt: prompt('worker'),
    tools: [...LOOKING_TOOLS, 'Edit', 'Write', 'NotebookEdit', 'TaskCreate', 'TaskUpdate', 'TaskList', 'Remember'],
    mode: 'full-access',
    limits: { maxTurns: 80 },
    output: 'worker',
    workspace: 'branch',
    sandbox: true,
    source: 'builtin',
  },
  {
    name: 'verification',
    description: 'Tries to break the change: builds, runs the tests, probes edge cases. Edits nothing in the repo.',
    prompt: prompt('verification'),
    tools: [...LOOKING_TOOLS],
    mode: 'full-access',
    limits: { maxTurns: 60 },
    output: 'verification',
    workspace: 'scratch',
    sandbox: true,
    source: 'builtin',
  },
];

export function builtinRole(name: string): RoleDefinition | undefined {
  return BUILTIN_ROLES.find((role) => role.name === name);
}
