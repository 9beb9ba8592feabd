import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BashResultData } from '../../shared/core/tool/bashResultData.js';
import { sandboxAvailability, shellSandbox } from '../../shared/policy/permissions/sandbox.js';
import { makeBashTool } from '../../shared/tools/bash.js';
import { tempDir } from '../support/tempDir.js';
import { makeToolContext } from '../support/toolContext.js';

/**
 * What every agent sandbox protects on the host (issue 31), with a fake HOME and ORCA_HOME:
 * ORCA_HOME, ~/.claude, ~/.claude.json, ~/.gitconfig, git's XDG config and the user's checkout
 * are read-only, even where a worktree lives inside ORCA_HOME; ORCA_HOME/secrets is not there.
 */
function protectedHost() {
  if (sandboxAvailability().kind !== 'bwrap') throw new Error(`no working bwrap here (${sandboxAvailability().problem})`);
  const home = tempDir('orca-home-');
  const orcaHome = path.join(home, 'orca-state');
  const checkout = tempDir('orca-checkout-');
  const worktree = path.join(orcaHome, 'worktrees', 'run', 'task');
  for (const dir of [
    path.join(home, '.claude'),
    path.join(home, '.config', 'git'),
    path.join(orcaHome, 'secrets'),
    path.join(orcaHome, 'memory'),
    worktree,
  ])
    mkdirSync(dir, { recursive: true });
  const files = {
    settings: path.join(home, '.claude', 'settings.json'),
    claudeJson: path.join(home, '.claude.json'),
    gitconfig: path.join(home, '.gitconfig'),
    xdgGit: path.join(home, '.config', 'git', 'config'),
    card: path.join(orcaHome, 'memory', 'card.md'),
    secret: path.join(orcaHome, 'secrets', 'redis.password'),
    checkoutFile: path.join(checkout, 'README.md'),
  };
  for (const file of Object.values(files)) writeFileSync(file, 'original\n');
  const sandbox = shellSandbox({
    enabled: true,
    worktree,
    tempDir: path.join(tempDir('orca-session-'), 'tmp'),
    host: { home, orcaHome, checkout, env: {} },
    // As a session lists it (sessionSandbox.ts): the workspace is also to be seen; writable wins.
    extraReadable: [worktree],
    notify: () => {},
  });
  const ctx = makeToolContext({ root: worktree });
  ctx.shell.wrap = sandbox.wrap;
  const bash = makeBashTool();
  const run = async (command: string) => {
    const output = await bash.call({ command }, ctx);
    return { content: output.content, exitCode: (output.data as BashResultData).exitCode };
  };
  return { files, worktree, run };
}

describe('the host paths every sandbox protects', () => {
  it("leaves ORCA_HOME, the user's Claude Code and git configuration and the checkout readable and unchangeable", async () => {
    const { files, run } = protectedHost();
    for (const [name, file] of Object.entries(files)) {
      if (name === 'secret') continue;
      const result = await run(`cat ${file} && echo hooked >> ${file}`);
      expect(result.content, name).toContain('original');
      expect(result.content, name).toMatch(/Read-only file system/);
      expect(readFileSync(file, 'utf8'), name).toBe('original\n');
    }
  });

  it('writes the worktree although it lives inside the read-only ORCA_HOME', async () => {
    const { worktree, run } = protectedHost();
    expect((await run('echo work > made.txt')).exitCode).toBe(0);
    expect(readFileSync(path.join(worktree, 'made.txt'), 'utf8')).toBe('work\n');
  });

  it('hides ORCA_HOME/secrets entirely', async () => {
    const { files, run } = protectedHost();
    const result = await run(`ls -A ${path.dirname(files.secret)}; cat ${files.secret}`);
    expect(result.content).toContain('No such file or directory');
    expect(result.content).not.toContain('original');
  });
});
