import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { type AgentBackend, isExternalAgent, ORCA_BACKEND } from '../../shared/core/agents/agentBackend.js';
import { agentNamed } from '../../shared/core/agents/agentChoice.js';
import { CGROUP_ROOT_ENV, cgroupHost } from '../../shared/core/runtime/agentCgroup.js';
import { modeOnlySlots } from '../../shared/core/tool/pipeline.js';
import { ownedCommitObject } from '../../shared/policy/permissions/ownedCommit.js';
import { OwnedPaths } from '../../shared/policy/permissions/ownedPaths.js';
import { ownedPathsGuard } from '../../shared/policy/permissions/ownedPathsSlots.js';
import { reportLookHolds } from '../../shared/policy/permissions/reportLook.js';
import { findOnPath, shellSandbox } from '../../shared/policy/permissions/sandbox.js';
import { WorktreeWatch } from '../../shared/policy/permissions/worktreeWatch.js';
import { makeBashTool } from '../../shared/tools/bash.js';
import { bash, REPORT_TURN, read, runScripted } from '../context/scriptedSession.js';
import { git, makeRepo, writeFiles } from '../support/gitRepo.js';
import { processesMatching, waitForNoProcess } from '../support/processTable.js';
import { tempDir } from '../support/tempDir.js';
import { makeToolContext } from '../support/toolContext.js';

/** A task worktree owning src/**, its watch and guard. */
async function guarded() {
  const repo = makeRepo({ 'README.md': '# r\n', 'src/a.txt': 'a\n' });
  const start = git(repo, 'rev-parse', 'HEAD');
  const dir = path.join(tempDir('orca-report-look-'), 'wt');
  git(repo, 'worktree', 'add', '-q', '-b', 'orca/r1/t1', dir, start);
  const owned = new OwnedPaths(['src/**']);
  const watch = await WorktreeWatch.open({ root: dir, start, owned, linked: [] });
  return { dir, start, owned, watch, guard: ownedPathsGuard(owned, watch, start) };
}

describe("the commit's use of the Report's look", () => {
  it("is kept from the Report's stop check only while no call ran after it", async () => {
    const { dir, guard } = await guarded();
    await runScripted({
      root: dir,
      turns: [bash('echo b > src/b.txt'), REPORT_TURN],
      slots: guard.wrap(modeOnlySlots),
      stopCheck: guard.stopCheck,
    });
    expect(guard.reportChanges()).toEqual(['src/b.txt']);
    // Any call after it (even a read-only one, which the watch does not look after) drops it.
    await guard
      .wrap(modeOnlySlots)
      .permission(
        { id: 'c1', tool: { name: 'Read' }, input: { file_path: path.join(dir, 'src/a.txt') }, readOnly: true } as never,
        undefined as never,
        makeToolContext({ root: dir }),
      );
    expect(guard.reportChanges()).toBeUndefined();
  });

  it('is not kept when the Report was sent back (a change left to undo) or the look put something back', async () => {
    const left = await guarded();
    const unowned = await runScripted({
      root: left.dir,
      turns: [bash('echo x > README.md'), REPORT_TURN, read(path.join(left.dir, 'README.md'))],
      slots: left.guard.wrap(modeOnlySlots),
      stopCheck: left.guard.stopCheck,
      limits: { maxTurns: 3 },
    });
    expect(unowned.events.some((event) => event.type === 'notice' && event.message.includes('README.md'))).toBe(true);
    expect(left.guard.reportChanges()).toBeUndefined();

    const putBack = await guarded();
    writeFiles(putBack.dir, { 'src/b.txt': 'b\n', '.claude/settings.json': '{}\n' });
    const stop = await putBack.guard.stopCheck.beforeStop!(
      { toolContext: { emit: () => undefined } } as never,
      { reason: 'report', report: {} } as never,
    );
    expect(stop).toContain('.claude/settings.json');
    expect(putBack.guard.reportChanges()).toBeUndefined();
  });

  it("takes the last call's status for the Report's own look only where nothing beside the calls can write: otherwise that look sees what was written since", async () => {
    const seen = async (quiet: boolean) => {
      const { dir, guard } = await guarded();
      guard.quietBesideCalls(() => quiet);
      const run = await runScripted({
        root: dir,
        turns: [bash('echo b > src/b.txt'), REPORT_TURN, REPORT_TURN],
        slots: guard.wrap(modeOnlySlots),
        stopCheck: guard.stopCheck,
        // What reportLook.ts rules out when it holds: a write beside the calls, after the Bash call's look.
        onEvent: (event) => {
          if (event.type === 'tool_result' && event.name === 'Bash') writeFiles(dir, { 'NOTES.md': 'beside the calls\n' });
        },
      });
      const refused = run.events.some((event) => event.type === 'notice' && event.message.includes('NOTES.md'));
      return { refused, changes: guard.reportChanges() };
    };
    expect(await seen(false)).toEqual({ refused: true, changes: undefined });
    expect(await seen(true)).toEqual({ refused: false, changes: ['src/b.txt'] });
  });

  it("looks once after a turn of file-tool calls where nothing beside the calls writes (after each call otherwise), and the Report's list holds every file written", async () => {
    const seen = async (quiet: boolean) => {
      const { dir, watch, guard } = await guarded();
      guard.quietBesideCalls(() => quiet);
      let looks = 0;
      const check = watch.check.bind(watch);
      watch.check = (options) => {
        looks += 1;
        return check(options);
      };
      const write = (file: string) => ({ name: 'Write', input: { file_path: file, content: `${file}\n` } });
      const statusAfterWrite: Array<string | undefined> = [];
      await runScripted({
        root: dir,
        turns: [bash('echo b > src/b.txt'), { tools: [write('src/c.txt'), write('src/d.txt'), write('src/e.txt')] }, REPORT_TURN],
        slots: guard.wrap(modeOnlySlots),
        stopCheck: guard.stopCheck,
        onEvent: (event) => {
          if (event.type === 'tool_result' && event.name === 'Write') statusAfterWrite.push(guard.lastStatus());
        },
      });
      return { looks, statusAfterWrite: statusAfterWrite.map((status) => status !== undefined), changes: guard.reportChanges() };
    };
    const files = ['src/b.txt', 'src/c.txt', 'src/d.txt', 'src/e.txt'];
    // The Bash call's look, one at the turn's end, the Report's (taking the last again where quiet).
    expect(await seen(true)).toEqual({ looks: 3, statusAfterWrite: [false, false, false], changes: files });
    expect(await seen(false)).toEqual({ looks: 5, statusAfterWrite: [true, true, true], changes: files });
  });

  it("holds only with bwrap's pid namespace and nothing running beside the agent's calls", () => {
    const quiet = { pidNamespace: true, hooks: false, mcpServers: false, languageServers: false, externalAgent: false };
    expect(reportLookHolds(quiet)).toBe(true);
    for (const breaks of [
      { pidNamespace: false },
      { hooks: true },
      { mcpServers: true },
      { languageServers: true },
      { externalAgent: true },
    ]) {
      expect(reportLookHolds({ ...quiet, ...breaks })).toBe(false);
    }
  });

  it("counts orca's own loop, named as the coordinator names it, as no external agent; an ACP agent as one", () => {
    const claudeCode = agentNamed('claude-code');
    if ('problem' in claudeCode) throw new Error(claudeCode.problem);
    expect(isExternalAgent(agentNamed('orca') as AgentBackend)).toBe(false);
    expect(isExternalAgent(ORCA_BACKEND)).toBe(false);
    expect(isExternalAgent(undefined)).toBe(false);
    expect(isExternalAgent(claudeCode)).toBe(true);
  });

  it('commits nothing the task may not commit from a list that missed a later write, and its own look catches that write', async () => {
    const { dir, start, owned } = await guarded();
    writeFiles(dir, { 'src/b.txt': 'b\n', 'README.md': 'not owned\n', '.env': 'SECRET=1\n' });
    const look = ['.env', 'README.md', 'src/b.txt'];
    // Written after the look (a process that outlived its call, where reportLook.ts does not hold).
    writeFiles(dir, { 'src/late.txt': 'late\n', 'NOTES.md': 'late, not owned\n' });
    const options = { start, owned, linked: [], branch: 'orca/r1/t1' };
    const fromLook = await ownedCommitObject(dir, 'm', { ...options, changed: look });
    expect(git(dir, 'ls-tree', '-r', '--name-only', fromLook.commit!).split('\n')).toEqual(['README.md', 'src/a.txt', 'src/b.txt']);
    expect(git(dir, 'show', `${fromLook.commit}:README.md`)).toBe('# r');
    expect(fromLook.left.map((refusal) => refusal.path)).toEqual(['.env', 'README.md']);
    // The late file stays on disk, uncommitted.
    expect(readFileSync(path.join(dir, 'src/late.txt'), 'utf8')).toBe('late\n');
    // Without a look handed over (the commit asks git itself), the later write is seen and the owned one taken.
    const ownLook = await ownedCommitObject(dir, 'm', options);
    expect(git(dir, 'ls-tree', '-r', '--name-only', ownLook.commit!).split('\n')).toEqual([
      'README.md',
      'src/a.txt',
      'src/b.txt',
      'src/late.txt',
    ]);
    expect(ownLook.left.map((refusal) => refusal.path)).toEqual(['.env', 'NOTES.md', 'README.md']);
  });
});

/** A Bash tool context whose commands run in bwrap, in a fresh worktree. */
function sandboxedContext() {
  // bwrap is installed where orca's tests run; without it this must fail, not pass vacuously.
  expect(findOnPath('bwrap')).toBeDefined();
  const worktree = tempDir('orca-report-look-bwrap-');
  const sandbox = shellSandbox({
    enabled: true,
    worktree,
    tempDir: path.join(tempDir('orca-session-'), 'tmp'),
    domains: [],
    notify: () => undefined,
  });
  expect(sandbox.active).toBe(true);
  const ctx = makeToolContext({ root: worktree });
  ctx.shell.wrap = sandbox.wrap;
  return ctx;
}

describe("a sandboxed command's processes", () => {
  afterEach(() => {
    delete process.env[CGROUP_ROOT_ENV];
  });

  it('all end with its call: one that left its group with setsid and writes in a loop writes no more once the call returned', async () => {
    const ctx = sandboxedContext();
    const marker = `orca-report-look-writer-${process.pid}`;
    const file = path.join(ctx.workspace.root, 'late.txt');
    await makeBashTool().call(
      {
        command: `setsid bash -c 'exec -a ${marker} bash -c "while :; do echo x >> late.txt; done"' >/dev/null 2>&1 & until [ -s late.txt ]; do :; done; echo started`,
      },
      ctx,
    );
    expect(existsSync(file)).toBe(true);
    const sizeAtReturn = statSync(file).size;
    expect(await waitForNoProcess(marker)).toEqual([]);
    await sleep(300);
    expect(statSync(file).size).toBe(sizeAtReturn);
  });

  it('all end before the call returns where no cgroup holds them: setsid writers, one deaf to SIGTERM and SIGHUP, are gone at once and write no more', async () => {
    // Without a cgroup only the pid namespace ends what left the group, as its init exits after bwrap.
    process.env[CGROUP_ROOT_ENV] = tempDir();
    expect(cgroupHost().problem).toBeDefined();
    const ctx = sandboxedContext();
    const marker = `orca-report-look-deaf-${process.pid}`;
    const writer = (name: string, trap: string) =>
      `setsid bash -c 'exec -a ${marker}-${name} bash -c "${trap}while :; do echo x >> ${name}.txt; done"' >/dev/null 2>&1 &`;
    const files = ['loop', 'deaf'].map((name) => path.join(ctx.workspace.root, `${name}.txt`));
    // A few rounds: the race this rules out (bwrap gone, its init not yet) is lost only now and then.
    for (let round = 0; round < 5; round++) {
      await makeBashTool().call(
        {
          command: `rm -f loop.txt deaf.txt; ${writer('loop', '')} ${writer('deaf', 'trap \\"\\" TERM HUP; ')} until [ -s loop.txt ] && [ -s deaf.txt ]; do :; done`,
        },
        ctx,
      );
      // Looked at once, with no wait: the writers themselves (argv[0] is the marker) run no more.
      expect(processesMatching(marker).filter((row) => row.args.startsWith(marker))).toEqual([]);
      const sizes = files.map((file) => statSync(file).size);
      expect(sizes.every((size) => size > 0)).toBe(true);
      await sleep(300);
      expect(files.map((file) => statSync(file).size)).toEqual(sizes);
    }
  });
});
