import { readFileSync } from 'node:fs';
import path from 'node:path';
import { builtinRole } from '../../roles/builtinRoles.js';
import { outputSchema } from '../../roles/outputs.js';
import type { AgentEvent } from '../../shared/core/events/agentEvent.js';
import { ScriptedModel } from '../../shared/core/model/scripted.js';
import { parseScript, type ScriptTurn } from '../../shared/core/model/scriptFile.js';
import type { PermissionMode } from '../../shared/core/tool/permissionMode.js';
import { Harness } from '../../shared/harness/harness.js';
import type { HarnessOptions } from '../../shared/harness/harnessOptions.js';
import { toolsNamed } from '../../shared/tools/catalog.js';
import { makeRepo } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';

/**
 * A repository set up for Claude Code (its `.claude/` files written by the test, in Claude
 * Code's published formats), one agent of a built-in role run through the whole harness with the
 * Scripted model playing `turns`.
 */

/** A catch-all hook group that appends each stdin JSON as one line of `file`, as a dumping hook does. */
export function dumpHook(file: string, matcher?: string): Record<string, unknown> {
  return { ...(matcher !== undefined ? { matcher } : {}), hooks: [{ type: 'command', command: `{ cat; echo; } >> '${file}'` }] };
}

export function dumped(file: string): Record<string, unknown>[] {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

export const WORKER_REPORT = { summary: 'done', unresolved: [], claimed_checks: [] };

export async function runClaudeCodeProject(options: {
  files: Record<string, string>;
  turns: ScriptTurn[];
  role?: 'worker' | 'explore';
  mode?: PermissionMode;
  stopEvent?: 'Stop' | 'SubagentStop';
  prompt?: string;
  sandbox?: boolean;
  extra?: Partial<HarnessOptions>;
}) {
  const repo = makeRepo(options.files);
  const roleName = options.role ?? 'worker';
  const role = builtinRole(roleName)!;
  const prompt = options.prompt ?? 'do the task';
  const model = new ScriptedModel(parseScript({ agents: [{ when: { role: roleName }, turns: options.turns }] }, 'the test script'), {
    role: roleName,
    prompt,
  });
  const harness = new Harness({
    role: { ...role, mode: options.mode ?? role.mode, sandbox: options.sandbox ?? false },
    tools: toolsNamed(role.tools),
    outputSchema: outputSchema(role.output),
    model,
    workspaceRoot: repo,
    workspaceWritable: true,
    sessionDir: path.join(tempDir('orca-session-'), 'session'),
    shellEnv: {},
    stopEvent: options.stopEvent ?? 'Stop',
    userClaudeDir: tempDir('orca-claude-'),
    homeDir: tempDir('orca-home-'),
    lsp: { enabled: false },
    ...options.extra,
  });
  const events: AgentEvent[] = [];
  const result = await harness.run(prompt, (event) => events.push(event));
  return { repo, harness, result, events };
}
