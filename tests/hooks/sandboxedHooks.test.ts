import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinRole } from '../../roles/builtinRoles.js';
import { outputSchema } from '../../roles/outputs.js';
import type { AgentEvent } from '../../shared/core/events/agentEvent.js';
import { ScriptedModel } from '../../shared/core/model/scripted.js';
import { parseScript } from '../../shared/core/model/scriptFile.js';
import type { SandboxMode } from '../../shared/core/runtime/sandboxMode.js';
import { Harness } from '../../shared/harness/harness.js';
import { findOnPath } from '../../shared/policy/permissions/sandbox.js';
import { toolsNamed } from '../../shared/tools/catalog.js';
import { makeRepo } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';

const REPORT = { summary: 'nothing to do', unresolved: [], claimed_checks: [] };

/**
 * A worker session in a repository whose settings carry a SessionStart hook that writes into the
 * worktree and into `outside`, a folder of the test's own under the host's /tmp (a shell hook and
 * one with `args`, no shell). In bwrap the host's /tmp is replaced by a private one: what the hook
 * writes there never reaches `outside`.
 */
async function sessionWithHook(mode: SandboxMode) {
  const outside = tempDir('orca-hook-outside-');
  const repo = makeRepo({ 'README.md': '# r\n' });
  mkdirSync(path.join(repo, '.claude'));
  const settings = {
    hooks: {
      SessionStart: [
        {
          hooks: [
            { type: 'command', command: `echo shell > ${outside}/from-shell; echo inside > "$CLAUDE_PROJECT_DIR/hook-ran"` },
            { type: 'command', command: 'touch', args: [`${outside}/from-args`] },
          ],
        },
      ],
    },
  };
  writeFileSync(path.join(repo, '.claude', 'settings.json'), JSON.stringify(settings));
  const role = builtinRole('worker')!;
  const model = new ScriptedModel(
    parseScript({ agents: [{ when: { role: 'worker' }, turns: [{ tools: [{ name: 'Report', input: REPORT }] }] }] }, 'test'),
    {
      role: 'worker',
      prompt: 'go',
    },
  );
  const harness = new Harness({
    role,
    sandboxMode: mode,
    tools: toolsNamed(role.tools),
    outputSchema: outputSchema(role.output),
    model,
    workspaceRoot: repo,
    workspaceWritable: true,
    sessionDir: path.join(tempDir('orca-session-'), 'session'),
    shellEnv: {},
    stopEvent: 'Stop',
    userClaudeDir: tempDir('orca-claude-'),
    homeDir: tempDir('orca-home-'),
    lsp: { enabled: false },
  });
  const events: AgentEvent[] = [];
  const result = await harness.run('go', (event) => events.push(event));
  const notices = events.flatMap((event) => (event.type === 'notice' ? [event.message] : []));
  return { result, repo, outside, harness, notices };
}

describe('hooks and --sandbox', () => {
  it('under required, command hooks run in the filesystem sandbox: the worktree is writable, the host is not', async () => {
    // bwrap is installed where orca's tests run; without it this must fail, not pass vacuously.
    expect(findOnPath('bwrap')).toBeDefined();
    const { result, repo, outside, harness } = await sessionWithHook('required');
    expect(harness.sandboxed).toBe(true);
    expect(result.reason).toBe('report');
    expect(existsSync(path.join(repo, 'hook-ran'))).toBe(true);
    expect(existsSync(path.join(outside, 'from-shell'))).toBe(false);
    expect(existsSync(path.join(outside, 'from-args'))).toBe(false);
  });

  it('under off, they run on the host too, and the full-access session says it runs unsandboxed', async () => {
    const { result, outside, harness, notices } = await sessionWithHook('off');
    expect(harness.sandboxed).toBe(false);
    expect(result.reason).toBe('report');
    expect(existsSync(path.join(outside, 'from-shell'))).toBe(true);
    expect(notices).toContain(
      'worker runs in full-access mode without the sandbox: its Bash commands run on this host as you, held only by the permission checks (a write a command names must be inside the worktree)',
    );
  });

  it('under auto, they run as Claude Code runs them, on the host', async () => {
    const { result, repo, outside } = await sessionWithHook('auto');
    expect(result.reason).toBe('report');
    expect(existsSync(path.join(repo, 'hook-ran'))).toBe(true);
    expect(existsSync(path.join(outside, 'from-shell'))).toBe(true);
    expect(existsSync(path.join(outside, 'from-args'))).toBe(true);
  });
});
