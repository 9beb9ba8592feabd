import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../shared/core/events/agentEvent.js';
import { modeOnlySlots } from '../../shared/core/tool/pipeline.js';
import { OwnedPaths } from '../../shared/policy/permissions/ownedPaths.js';
import { commandsConfined, fileToolLookWaits, ownedPathsGuard } from '../../shared/policy/permissions/ownedPathsSlots.js';
import { WorktreeWatch } from '../../shared/policy/permissions/worktreeWatch.js';
import { bash, REPORT_TURN, runScripted } from '../context/scriptedSession.js';
import { git, makeRepo } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';

const CHECKOUT_NOTE = "in the repository's own checkout";

/** A task worktree of a fresh repository, its watch (the repository's checkout included) and guard. */
async function watchedWorktree() {
  const repo = makeRepo({ 'README.md': '# r\n' });
  const start = git(repo, 'rev-parse', 'HEAD');
  const dir = path.join(tempDir('orca-checkout-look-'), 'wt');
  git(repo, 'worktree', 'add', '-q', '-b', 'orca/r1/t1', dir, start);
  const owned = new OwnedPaths(undefined);
  const watch = await WorktreeWatch.open({ root: dir, start, owned, linked: [], checkout: repo });
  const guard = ownedPathsGuard(owned, watch, start);
  return { repo, dir, guard };
}

/**
 * One session in a worktree of a repository whose checkout a command writes into (no sandbox
 * here: it stands for what the sandbox would have stopped, to see when the host looks). Returns
 * what the Bash call was told, and the notices the session raised.
 */
async function writeIntoCheckout(confined: boolean): Promise<{ afterBash: string; notices: string[] }> {
  const { repo, dir, guard } = await watchedWorktree();
  guard.confineCommands(confined);
  const events: AgentEvent[] = [];
  await runScripted({
    root: dir,
    turns: [bash(`echo late > ${path.join(repo, 'LATE.txt')}`), REPORT_TURN],
    slots: guard.wrap(modeOnlySlots),
    stopCheck: guard.stopCheck,
    onEvent: (event) => events.push(event),
  });
  const result = events.find((event) => event.type === 'tool_result' && event.name === 'Bash');
  const notices = events.flatMap((event) => (event.type === 'notice' ? [event.message] : []));
  return { afterBash: result?.type === 'tool_result' ? result.preview : '', notices };
}

/**
 * One session whose Write call finds the user's checkout changed under it (the test writes there as
 * the call starts: it stands for what `quiet` says cannot happen). Returns the session's notices.
 */
async function checkoutChangedDuringWrite(quiet: boolean): Promise<string[]> {
  const { repo, dir, guard } = await watchedWorktree();
  guard.confineCommands(true);
  guard.quietBesideCalls(() => quiet);
  const notices: string[] = [];
  await runScripted({
    root: dir,
    turns: [{ tools: [{ name: 'Write', input: { file_path: 'notes.txt', content: 'mine\n' } }] }, REPORT_TURN],
    slots: guard.wrap(modeOnlySlots),
    stopCheck: guard.stopCheck,
    onEvent: (event) => {
      if (event.type === 'tool_call' && event.name === 'Write') writeFileSync(path.join(repo, 'LATE.txt'), 'late\n');
      if (event.type === 'notice') notices.push(event.message);
    },
  });
  return notices;
}

describe("the look at the user's checkout", () => {
  it("after a file tool, unless nothing but the agent's calls can write: then the Report looks, from the same baseline, and names the change", async () => {
    const each = await checkoutChangedDuringWrite(false);
    expect(each.find((notice) => notice.startsWith('changes refused after Write'))).toContain(`LATE.txt: LATE.txt ${CHECKOUT_NOTE}`);

    const deferred = await checkoutChangedDuringWrite(true);
    expect(deferred.some((notice) => notice.startsWith('changes refused after Write'))).toBe(false);
    expect(deferred.find((notice) => notice.startsWith('changes refused before the Report'))).toContain(
      `LATE.txt: LATE.txt ${CHECKOUT_NOTE}`,
    );
  });

  it('waits after a file tool only when quiet, never after another tool that ran no command', () => {
    expect(fileToolLookWaits({ fileTool: true, quiet: true })).toBe(true);
    expect(fileToolLookWaits({ fileTool: true, quiet: false })).toBe(false);
    expect(fileToolLookWaits({ fileTool: false, quiet: true })).toBe(false);
  });

  it('after each command, unless commands are confined: then the Report looks, from the same baseline, and names the change', async () => {
    const each = await writeIntoCheckout(false);
    expect(each.notices.find((notice) => notice.startsWith('changes refused after Bash'))).toContain(`LATE.txt: LATE.txt ${CHECKOUT_NOTE}`);

    const deferred = await writeIntoCheckout(true);
    expect(deferred.notices.some((notice) => notice.startsWith('changes refused after Bash'))).toBe(false);
    expect(deferred.notices.find((notice) => notice.startsWith('changes refused before the Report'))).toContain(
      `LATE.txt: LATE.txt ${CHECKOUT_NOTE}`,
    );
  });

  it('may wait only where a sandbox holds commands, no hook or MCP server runs on the host, and no writable folder holds the checkout', () => {
    const root = tempDir('orca-confined-');
    const facts = {
      sandboxed: true,
      writable: [path.join(root, 'home/worktrees/t1'), path.join(root, 'home/sessions/t1/tmp')],
      checkout: path.join(root, 'repo'),
      hostHooks: false,
      mcpServers: false,
      externalAgent: false,
    };
    expect(commandsConfined(facts)).toBe(true);
    expect(commandsConfined({ ...facts, checkout: undefined })).toBe(true);
    expect(commandsConfined({ ...facts, sandboxed: false })).toBe(false);
    expect(commandsConfined({ ...facts, hostHooks: true })).toBe(false);
    expect(commandsConfined({ ...facts, mcpServers: true })).toBe(false);
    expect(commandsConfined({ ...facts, externalAgent: true })).toBe(false);
    // A worktree inside the checkout, or a checkout inside a writable folder: commands reach it.
    expect(commandsConfined({ ...facts, writable: [path.join(root, 'repo/.orca/worktrees/t1')] })).toBe(false);
    expect(commandsConfined({ ...facts, checkout: path.join(root, 'home/sessions/t1/tmp/repo') })).toBe(false);
    expect(commandsConfined({ ...facts, writable: [path.join(root, 'repo')] })).toBe(false);
  });
});
