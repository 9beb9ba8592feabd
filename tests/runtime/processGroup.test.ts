import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import {
  groupAlive,
  killAllProcessGroups,
  liveProcessGroups,
  type ProcessGroup,
  spawnGroup,
} from '../../shared/core/runtime/processGroup.js';
import { processesMatching, waitForCommands, waitForNoProcess } from '../support/processTable.js';
import { tempDir } from '../support/tempDir.js';

// Unique sleep durations (600.2xx) name each test's processes in `ps`, so files running in
// parallel cannot be confused with each other.

afterEach(async () => {
  // A failed test must not leave its sleeps behind.
  await killAllProcessGroups(200);
});

function start(script: string): Promise<ProcessGroup> {
  return spawnGroup('bash', ['-c', script], { cwd: tempDir(), env: process.env });
}

function collect(group: ProcessGroup): () => string {
  const chunks: Buffer[] = [];
  group.child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  return () => Buffer.concat(chunks).toString('utf8');
}

describe('spawnGroup', () => {
  it('starts the command as the leader of a new group, with stdin closed', async () => {
    const group = await start('ps -o pgid= -p $$; cat; echo after-cat');
    const stdout = collect(group);
    expect(liveProcessGroups()).toContain(group.pgid);

    // `cat` returns at once only because stdin is closed (it reads /dev/null).
    expect(await group.exited).toEqual({ code: 0, signal: null });
    await group.kill();
    // The leader's exit can come before its last output is read: wait for the pipes to close.
    expect(await group.outputClosedWithin()).toBe(true);
    const [pgid, after] = stdout().trim().split('\n');
    expect(Number(pgid)).toBe(group.pgid);
    const ownPgid = Number(execFileSync('ps', ['-o', 'pgid=', '-p', String(process.pid)], { encoding: 'utf8' }).trim());
    expect(group.pgid).not.toBe(ownPgid);
    expect(after).toBe('after-cat');
    expect(liveProcessGroups()).not.toContain(group.pgid);
  });

  it('writes `stdin` to the command, then closes it', async () => {
    const group = await spawnGroup('bash', ['-c', 'cat; echo "<end>"'], { cwd: tempDir(), env: process.env, stdin: '{"hook":"input"}' });
    const stdout = collect(group);
    expect(await group.exited).toEqual({ code: 0, signal: null });
    await group.kill();
    expect(await group.outputClosedWithin()).toBe(true);
    expect(stdout()).toBe('{"hook":"input"}<end>\n');
  });

  it('refuses a missing working folder, naming it, and tracks nothing', async () => {
    const before = liveProcessGroups();
    await expect(spawnGroup('bash', ['-c', 'true'], { cwd: '/nonexistent/orca-cwd', env: process.env })).rejects.toThrow(
      /could not start bash in \/nonexistent\/orca-cwd/,
    );
    expect(liveProcessGroups()).toEqual(before);
  });
});

describe('ProcessGroup.kill', () => {
  it('ends every process of the group, grandchildren included, before it resolves', async () => {
    const group = await start(`sleep 600.201 & sh -c "(sleep 600.202)" & wait`);
    await waitForCommands(['sleep 600.201', 'sleep 600.202']);
    expect(processesMatching('sleep 600.202')[0]?.pgid).toBe(group.pgid);

    await group.kill();

    expect(processesMatching('sleep 600.201')).toEqual([]);
    expect(processesMatching('sleep 600.202')).toEqual([]);
    expect(groupAlive(group.pgid)).toBe(false);
    expect((await group.exited).signal).toBe('SIGTERM');
    expect(liveProcessGroups()).not.toContain(group.pgid);
  });

  it('sends SIGKILL after the grace period to a group that ignores SIGTERM', async () => {
    // An ignored signal stays ignored across fork and exec, so the sleeps ignore SIGTERM too.
    const group = await start(`trap '' TERM; sleep 600.203 & sleep 600.204; wait`);
    await waitForCommands(['sleep 600.203', 'sleep 600.204']);

    await group.kill(300);

    expect((await group.exited).signal).toBe('SIGKILL');
    expect(processesMatching('sleep 600.203')).toEqual([]);
    expect(processesMatching('sleep 600.204')).toEqual([]);
    expect(groupAlive(group.pgid)).toBe(false);
  });

  it('kills the background jobs a leader left behind when it exited', async () => {
    const group = await start(`sleep 600.205 & echo started`);
    expect(await group.exited).toEqual({ code: 0, signal: null });
    await waitForCommands(['sleep 600.205']);
    expect(groupAlive(group.pgid)).toBe(true);

    await group.kill();

    expect(processesMatching('sleep 600.205')).toEqual([]);
    expect(groupAlive(group.pgid)).toBe(false);
  });

  it('counts a group holding only zombies as gone', async () => {
    // The subshell's sleep is orphaned; where init does not reap orphans (as on this machine's
    // VM) it stays a zombie in the group for good, which kill(-pgid, 0) alone would count as alive.
    const group = await start(`(sleep 0.01 &); sleep 0.5`);
    await group.exited;
    expect(groupAlive(group.pgid)).toBe(false);
    await group.kill();
    expect(liveProcessGroups()).not.toContain(group.pgid);
  });
});

describe('killAllProcessGroups', () => {
  it('kills every live group this process started', async () => {
    const first = await start(`sleep 600.206 & wait`);
    const second = await start(`bash -c 'sleep 600.207 & wait'`);
    await waitForCommands(['sleep 600.206', 'sleep 600.207']);
    expect(liveProcessGroups()).toEqual(expect.arrayContaining([first.pgid, second.pgid]));

    await killAllProcessGroups();

    expect(processesMatching('sleep 600.206')).toEqual([]);
    expect(processesMatching('sleep 600.207')).toEqual([]);
    expect(liveProcessGroups()).toEqual([]);
  });
});

describe('a process killed with SIGKILL', () => {
  it('leaves nothing running: its watchdog stops the groups it had started, grandchildren included', async () => {
    // A process like a worker: it starts a group whose command starts a grandchild, then dies
    // without running any exit handler.
    const entry = new URL('../../dist/shared/core/runtime/processGroup.js', import.meta.url).href;
    const program = `const { spawnGroup } = await import(${JSON.stringify(entry)});
      await spawnGroup('bash', ['-c', 'bash -c "sleep 600.208; true" & sleep 600.209; true'], { cwd: process.cwd(), env: process.env });
      console.log('started');
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', program], { cwd: tempDir(), stdio: ['ignore', 'pipe', 'inherit'] });
    await once(child.stdout, 'data');
    await waitForCommands(['sleep 600.208', 'sleep 600.209']);

    child.kill('SIGKILL');
    await once(child, 'exit');

    expect(await waitForNoProcess('sleep 600.208')).toEqual([]);
    expect(await waitForNoProcess('sleep 600.209')).toEqual([]);
  });
});
