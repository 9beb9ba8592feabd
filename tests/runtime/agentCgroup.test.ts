import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentCgroup, CGROUP_ROOT_ENV, cgroupHost, sweepStaleCgroups } from '../../shared/core/runtime/agentCgroup.js';
import { killAllProcessGroups, spawnGroup } from '../../shared/core/runtime/processGroup.js';
import { sandboxPolicy } from '../../shared/core/sandbox/agentPolicy.js';
import { bwrapWrap, findOnPath } from '../../shared/core/sandbox/bwrap.js';
import { processesMatching, waitForNoProcess, waitForProcesses } from '../support/processTable.js';
import { tempDir } from '../support/tempDir.js';

// Unique sleep durations (600.3xx) name each case's processes in `ps`.

/** The ways agent code leaves its process group; each runs `job` in the background and returns at once. */
const ESCAPES: Record<string, (job: string) => string> = {
  setsid: (job) => `setsid sh -c '${job}' &`,
  'double fork': (job) => `( setsid sh -c '( ${job} ) &' & )`,
  nohup: (job) => `nohup sh -c 'trap "" HUP TERM; ${job}' >/dev/null 2>&1 &`,
};

const bwrap = findOnPath('bwrap');
const host = cgroupHost();
let marker = 300;

afterEach(async () => {
  delete process.env[CGROUP_ROOT_ENV];
  await killAllProcessGroups(200);
});

/** Runs one way out as an agent's command would run (sandboxed or not), stops it, and says what outlived it. */
async function escapeAndStop(way: string, sandboxed: boolean): Promise<{ sleep: string; late: string; leftRunning: number[] }> {
  const dir = tempDir();
  const late = path.join(dir, 'late.txt');
  marker += 1;
  const sleeper = `sleep 600.${marker}`;
  // Spelled `$((n))` in the script, so only the escaped process itself shows the marker in `ps`
  // (not the shells and bwrap whose command lines hold the script). The command itself keeps
  // running (a long build, a server) until it is stopped, as at a timeout or abort.
  const job = `sleep 600.$((${marker})); echo late > ${late}`;
  const script = `${ESCAPES[way]!(job)}\necho started\nsleep 600`;
  const { file, args } = sandboxed
    ? bwrapWrap(bwrap!, sandboxPolicy({ worktree: dir, tempDir: tempDir(), host: { orcaHome: tempDir() } }))(script, dir)
    : { file: 'bash', args: ['-c', script] };
  const group = await spawnGroup(file, args, { cwd: dir, env: process.env });
  await waitForProcesses([sleeper]);
  await group.kill(200);
  const left = await waitForNoProcess(sleeper, sandboxed || group.cgroup ? 30_000 : 0);
  return { sleep: sleeper, late, leftRunning: left.map((row) => row.pid) };
}

describe('agent processes that leave their process group', () => {
  it('this host gives cgroups (v2) under its own cgroup, so the cases below run with one', () => {
    expect(host.problem).toBeUndefined();
  });

  for (const way of Object.keys(ESCAPES)) {
    it(`${way}: unsandboxed, the cgroup ends what left the group, and its late write never lands`, async () => {
      const { late, leftRunning } = await escapeAndStop(way, false);
      expect(leftRunning).toEqual([]);
      expect(existsSync(late)).toBe(false);
    });

    it(`${way}: in bwrap, with the cgroup, nothing outlives the command`, async () => {
      const { late, leftRunning } = await escapeAndStop(way, true);
      expect(leftRunning).toEqual([]);
      expect(existsSync(late)).toBe(false);
    });

    it(`${way}: in bwrap on a host without cgroup access, the sandbox's pid namespace ends it`, async () => {
      process.env[CGROUP_ROOT_ENV] = tempDir(); // a folder that is no cgroup: nothing can join it
      expect(cgroupHost().problem).toMatch(/cannot be written/);
      const { late, leftRunning } = await escapeAndStop(way, true);
      expect(leftRunning).toEqual([]);
      expect(existsSync(late)).toBe(false);
    });
  }

  it('unsandboxed on a host without cgroup access, a setsid process outlives the command (what docs/security.md says holds nowhere else)', async () => {
    process.env[CGROUP_ROOT_ENV] = tempDir();
    const { leftRunning } = await escapeAndStop('setsid', false);
    expect(leftRunning.length).toBeGreaterThan(0);
    for (const pid of leftRunning) process.kill(pid, 'SIGKILL');
  });
});

describe('the cgroup a group runs in', () => {
  it('is joined before the command runs and removed once the group is killed', async () => {
    const group = await spawnGroup('bash', ['-c', 'tail -1 /proc/self/cgroup; sleep 600'], { cwd: tempDir(), env: process.env });
    const [line] = (await once(group.child.stdout, 'data')) as [Buffer];
    const dir = group.cgroup!.dir;
    expect(line.toString()).toBe(`0::${dir.slice(dir.indexOf(`/orca-${process.pid}/`))}\n`);
    await group.kill(200);
    expect(existsSync(dir)).toBe(false);
  });
});

describe('sweepStaleCgroups', () => {
  it("ends the agents of a process that died without ending them, and removes its folder, leaving live processes' alone", async () => {
    // A root of its own: every other test file's worker sweeps the shared root too, and could
    // sweep this dead pid's folder between its making and the sweep under test (it did, once).
    const root = path.join(host.root!, `orcatest-sweep-${process.pid}`);
    mkdirSync(root);
    process.env[CGROUP_ROOT_ENV] = root;
    try {
      const dead = spawnSync('true').pid;
      const stale = path.join(root, `orca-${dead}`, 'g1');
      mkdirSync(stale, { recursive: true });
      const orphan = spawn('sleep', ['600.391'], { detached: true, stdio: 'ignore' });
      await waitForProcesses(['sleep 600.391']);
      writeFileSync(path.join(stale, 'cgroup.procs'), String(orphan.pid));
      const mine = AgentCgroup.create()!;
      const orphanExit = once(orphan, 'exit');

      const swept = await sweepStaleCgroups();

      expect(swept).toContain(`orca-${dead}`);
      expect(existsSync(path.dirname(stale))).toBe(false);
      expect(await orphanExit).toEqual([null, 'SIGKILL']);
      expect(processesMatching('sleep 600.391')).toEqual([]);
      expect(readdirSync(root)).toContain(`orca-${process.pid}`);
      await mine.kill();
    } finally {
      removeCgroupTree(root);
    }
  });
});

/** A cgroup folder and those under it, deepest first (a cgroup goes with rmdir, its files with it). */
function removeCgroupTree(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) removeCgroupTree(path.join(dir, entry.name));
  rmdirSync(dir);
}

describe('a process killed with SIGKILL', () => {
  it("leaves nothing running: its watchdog ends its agents' cgroups, what left the group with setsid included", async () => {
    const entry = new URL('../../dist/shared/core/runtime/processGroup.js', import.meta.url).href;
    const program = `const { spawnGroup } = await import(${JSON.stringify(entry)});
      await spawnGroup('bash', ['-c', 'setsid sh -c "sleep 600.\\\\$((392))" & sleep 600'], { cwd: process.cwd(), env: process.env });
      console.log('started');
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', program], { cwd: tempDir(), stdio: ['ignore', 'pipe', 'inherit'] });
    await once(child.stdout, 'data');
    await waitForProcesses(['sleep 600.392']);

    child.kill('SIGKILL');
    await once(child, 'exit');

    expect(await waitForNoProcess('sleep 600.392')).toEqual([]);
    // The watchdog removes the emptied folders right after; polled, with a deadline as a safety net.
    const folder = path.join(host.root!, `orca-${child.pid}`);
    for (const deadline = Date.now() + 30_000; existsSync(folder) && Date.now() < deadline; ) await sleep(50);
    expect(existsSync(folder)).toBe(false);
  });
});
