import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { modeOnlySlots, runToolCall, type ToolPipelineSlots } from '../../shared/core/tool/pipeline.js';
import { ToolRegistry } from '../../shared/core/tool/registry.js';
import { createPermissionDecider } from '../../shared/policy/permissions/permissionSlot.js';
import { PermissionPolicy } from '../../shared/policy/permissions/policy.js';
import { DenyPrompter } from '../../shared/policy/permissions/prompter.js';
import { shellSandbox } from '../../shared/policy/permissions/sandbox.js';
import { makeBashTool } from '../../shared/tools/bash.js';
import { git, writeFiles } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';
import { makeToolContext } from '../support/toolContext.js';

/**
 * The real Bash tool behind the real permission decider, as a session gets them from
 * shellSandbox: without bwrap, only the checks stand between a command and the user's checkout.
 */
function session(sandbox: boolean) {
  const worktree = tempDir('orca-worktree-');
  const notices: string[] = [];
  const shell = shellSandbox({
    enabled: sandbox,
    worktree,
    tempDir: path.join(tempDir('orca-session-'), 'tmp'),
    notify: (m) => notices.push(m),
  });
  expect(shell.active).toBe(sandbox);
  const ctx = makeToolContext({ root: worktree, mode: 'full-access' });
  ctx.shell.wrap = shell.wrap;
  const permission = createPermissionDecider({ policy: new PermissionPolicy([], shell.policy), prompter: new DenyPrompter() });
  const slots: ToolPipelineSlots = { ...modeOnlySlots, permission };
  const registry = new ToolRegistry([makeBashTool()]);
  let calls = 0;
  const run = async (command: string) =>
    (await runToolCall({ id: `call-${(calls += 1)}`, name: 'Bash', input: { command } }, registry, slots, ctx)).block;
  writeFiles(ctx.workspace.root, { 'README.md': '# worktree\n', 'a.txt': 'a\n' });
  return { root: ctx.workspace.root, run };
}

const outsideTmp: string[] = [];
afterEach(() => {
  for (const dir of outsideTmp.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A git checkout standing for the user's; in /var/tmp when the sandbox must be able to see it. */
function mainCheckout(where: 'tmp' | 'var-tmp'): string {
  let dir: string;
  if (where === 'tmp') {
    dir = realpathSync(tempDir('orca-main-'));
  } else {
    dir = realpathSync(mkdtempSync('/var/tmp/orca-main-'));
    outsideTmp.push(dir);
  }
  git(dir, 'init', '-q', '-b', 'main');
  writeFiles(dir, { 'README.md': '# main\n', 'src/a.ts': 'export {};\n' });
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'initial');
  return dir;
}

/** Every file under the checkout with its content and mode, and its HEAD: nothing may change. */
function snapshot(dir: string): Record<string, string> {
  const found: Record<string, string> = { HEAD: git(dir, 'rev-parse', 'HEAD'), status: git(dir, 'status', '--porcelain') };
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.name === '.git') continue;
      const full = path.join(folder, entry.name);
      const mode = lstatSync(full).mode.toString(8);
      if (entry.isDirectory()) walk(full);
      else found[path.relative(dir, full)] = `${mode} ${entry.isFile() ? readFileSync(full, 'utf8') : 'link'}`;
    }
  };
  walk(dir);
  return found;
}

const DENIED = /^Permission to use Bash was denied: /;

describe('Bash without the sandbox cannot write the main checkout', () => {
  it('refuses every way of naming it, and nothing there changes', async () => {
    const main = mainCheckout('tmp');
    const { run, root } = session(false);
    // Made inside the worktree and run, so the extraction below has something to extract.
    expect((await run('tar -cf bundle.tar a.txt')).is_error).toBeUndefined();
    // A link made in a call of its own is followed by the checks of every later call.
    expect((await run(`ln -s ${main} into-main`)).is_error).toBeUndefined();
    const before = snapshot(main);
    const attempts = [
      `cp README.md ${main}/evil-cp.txt`,
      `cd ${main} && touch evil-touch.txt`,
      `git -C ${main} commit --allow-empty -qm evil`,
      `mv ${main}/README.md stolen.md`,
      `sed -i s/main/owned/ ${main}/README.md`,
      `chmod 777 ${main}/README.md`,
      `tar -xf bundle.tar -C ${main}`,
      `rm -f ${main}/src/a.ts`,
      `D=${main}; cp README.md "$D/evil-dynamic.txt"`,
      `echo ${main}/evil-xargs.txt | xargs touch`,
      `ln -s ${main} lnk && touch lnk/evil-link.txt`,
      `cd ${main} && git commit --allow-empty -qm evil`,
      'touch into-main/evil-through-link.txt',
      'chmod -R 777 *',
      'echo x > into-main/../evil-dotdot.txt',
    ];
    for (const command of attempts) {
      const block = await run(command);
      expect(block.is_error, `${command} ran: ${block.content}`).toBe(true);
      expect(block.content).toMatch(DENIED);
    }
    expect(snapshot(main)).toEqual(before);
    expect(existsSync(path.join(path.dirname(main), 'evil-dotdot.txt'))).toBe(false);
    expect(existsSync(path.join(root, 'stolen.md'))).toBe(false);
  });

  it('still runs ordinary work inside the worktree', async () => {
    const { run, root } = session(false);
    const block = await run(
      "mkdir -p build && cp README.md build/copy.md && sed -i 's/worktree/copy/' build/copy.md && chmod +x build/copy.md && tar -cf out.tar build && rm a.txt",
    );
    expect(block.is_error, String(block.content)).toBeUndefined();
    expect(readFileSync(path.join(root, 'build', 'copy.md'), 'utf8')).toBe('# copy\n');
    expect(existsSync(path.join(root, 'out.tar'))).toBe(true);
    expect(existsSync(path.join(root, 'a.txt'))).toBe(false);
  });
});

describe('Bash in the sandbox', () => {
  it('refuses a known write to the checkout itself, and leaves what it cannot know to bwrap, which stops it', async () => {
    const main = mainCheckout('var-tmp');
    const { run } = session(true);
    const before = snapshot(main);
    const known = await run(`cp README.md ${main}/evil-known.txt`);
    expect(known.is_error).toBe(true);
    expect(known.content).toMatch(DENIED);
    for (const command of [
      `D=${main}; cp README.md "$D/evil-dynamic.txt"`,
      `cd ${main} && node -e "require('fs').writeFileSync('evil-node.txt', 'x')"`,
    ]) {
      const block = await run(command);
      // Allowed by the checks: bwrap's read-only view of the host is what refuses it.
      expect(block.content).not.toMatch(DENIED);
      expect(block.content).toMatch(/Read-only file system|EROFS/);
    }
    expect(snapshot(main)).toEqual(before);
  });
});
