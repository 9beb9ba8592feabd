import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunJson } from '../../coordinator/run/runResult.js';
import { compiledEntry, packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { readRunEvents } from '../../shared/infra/board/runEvents.js';
import { Keys } from '../../shared/infra/redis/keys.js';
import { connectRedis } from '../../shared/infra/redis/redisConnection.js';
import { git } from '../support/gitRepo.js';
import { SLOW_TEST_MS } from '../support/orcaEnv.js';
import { type HostWorker, SHARED_FIXTURES, SimulatedHosts } from '../support/simulatedHosts.js';

/**
 * Workers on other machines, simulated: two network namespaces ("hosts"), each running one
 * `orca worker` that reaches only a Redis and a git daemon on the test's side of its veth pair,
 * in a filesystem view (bwrap) where the user's repository and the git server's folder are empty.
 * The coordinator, here, shares the run over git://. Needs root (these machines and CI run as root).
 */
describe('a run shared over git with workers on two hosts', { timeout: SLOW_TEST_MS }, () => {
  let hosts: SimulatedHosts;
  let root: string;
  let redis: Redis;
  let redisUrl: string;
  let gitUrl: string;
  const prefix = `orca-test-${randomUUID().slice(0, 8)}`;
  const keys = new Keys(prefix);
  const workers: HostWorker[] = [];
  const pids: number[] = [];

  beforeAll(async () => {
    if (process.getuid?.() !== 0) throw new Error('this test makes network namespaces: run it as root');
    // Not under /tmp: an agent's sandboxed shell has a /tmp of its own, and reads the gates below from here.
    root = realpathSync(mkdtempSync(path.join('/var/tmp', 'orca-hosts-')));
    hosts = await SimulatedHosts.create(['host-a', 'host-b']);
    redisUrl = await hosts.startRedis(path.join(root, 'redis'));
    mkdirSync(path.join(root, 'server'));
    gitUrl = await hosts.startGitDaemon(path.join(root, 'server'));
    redis = connectRedis(redisUrl);
    for (const host of hosts.hosts) {
      const home = path.join(root, host.name);
      const worker = await hosts.startWorker(host, {
        env: {
          PATH: process.env.PATH,
          REDIS_URL: redisUrl,
          ORCA_PREFIX: prefix,
          ORCA_HOME: path.join(home, 'orca-home'),
          HOME: path.join(home, 'user-home'),
          ORCA_LSP: 'off',
        },
        // Nothing of the user's machine but orca itself: no repository, no git server's folder.
        hide: [path.join(root, 'user'), path.join(root, 'server')],
        args: ['--concurrency', '1', '--lock-duration', '4000'],
      });
      workers.push(worker);
      pids.push(await worker.ready);
    }
  });

  afterAll(async () => {
    redis?.disconnect();
    await hosts?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('completes PASS on both hosts, survives a host dying mid-job, and ends in the user repository untouched', async () => {
    const repo = path.join(root, 'user', 'tally');
    cpSync(path.join(SHARED_FIXTURES, 'repo'), repo, { recursive: true });
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'tally: initial version');
    const base = git(repo, 'rev-parse', 'HEAD');
    execFileSync('git', ['init', '-q', '--bare', path.join(root, 'server', 'tally.git')]);
    const sync = path.join(root, 'sync');
    mkdirSync(sync);
    const script = path.join(root, 'shared-run.json');
    writeFileSync(script, readFileSync(path.join(SHARED_FIXTURES, 'shared-run.json'), 'utf8').replaceAll('__SYNC__', sync));

    const share = `${gitUrl}/tally.git`;
    const run = startRun(['run', 'a scripted task', '--repo', repo, '--script', script, '--json', '--share', share, '--no-local-workers'], {
      ...process.env,
      REDIS_URL: redisUrl,
      ORCA_PREFIX: prefix,
      ORCA_HOME: path.join(root, 'coordinator-home'),
      HOME: path.join(root, 'coordinator-user-home'),
      ORCA_LSP: 'off',
    });
    const runId = await run.runId;

    // alpha and beta each wait at a gate until both are waiting: with one job at a time per worker, on both hosts.
    // gamma depends on both, so it cannot take a host first: the three are dispatched at once
    // otherwise, and which is queued first is a race (each first publishes its base to the remote).
    await toolRuns(runId, 'alpha', path.join(sync, 'alpha-go'), run);
    await toolRuns(runId, 'beta', path.join(sync, 'beta-go'), run);
    writeFileSync(path.join(sync, 'alpha-go'), '');
    writeFileSync(path.join(sync, 'beta-go'), '');
    // gamma waits at its gate with a file half-written: its host's worker is killed there, mid-job.
    const gamma = await toolRuns(runId, 'gamma', path.join(sync, 'gate'), run);
    const victim = pids.indexOf(Number(gamma.pid));
    expect(victim, `gamma runs on neither host's worker: ${JSON.stringify(gamma)}`).not.toBe(-1);
    expect(gamma.host).toBe(hosts.hosts[victim]!.name);
    process.kill(pids[victim]!, 'SIGKILL');
    writeFileSync(path.join(sync, 'gate'), '');

    const { code, stdout, stderr } = await run.done;
    let json: RunJson;
    try {
      json = JSON.parse(stdout) as RunJson;
    } catch {
      throw new Error(`orca run printed no JSON (exit ${code}):\n${stdout}\n${stderr}\n${workers.map((w) => w.stderr).join('\n')}`);
    }
    expect(code, `${stderr}\n${stdout}`).toBe(0);
    expect(json.status).toBe('PASS');
    expect(Object.fromEntries(json.tasks.map((t) => [t.id, t.status]))).toEqual({ alpha: 'verified', beta: 'verified', gamma: 'verified' });
    const hostOf = Object.fromEntries(json.tasks.map((t) => [t.id, t.host]));
    // alpha and beta wait for each other, and each worker takes one job at a time: they ran on both hosts.
    expect(new Set([hostOf.alpha, hostOf.beta])).toEqual(new Set(['host-a', 'host-b']));
    const survivor = hosts.hosts[1 - victim]!.name;
    expect(hostOf.gamma).toBe(survivor);

    const events = (await readRunEvents(redis, keys, runId, '0', 10_000)).map(({ entry }) => entry);
    // gamma began on the host that died and was taken by the other, from its base (the integration
    // head once alpha and beta were in): not from the dead one's tree.
    const gammaStarts = events
      .filter((e) => e.task_id === 'gamma' && e.event.type === 'workspace')
      .map((e) => ({ host: e.event.host, start: e.event.start }));
    expect(gammaStarts.map((e) => e.host)).toEqual([hosts.hosts[victim]!.name, survivor]);
    const gammaBase = String(gammaStarts[0]?.start);
    expect(gammaStarts.map((e) => e.start)).toEqual([gammaBase, gammaBase]);
    expect(git(repo, 'merge-base', '--is-ancestor', base, gammaBase)).toBe('');
    expect(git(repo, 'show', `${gammaBase}:notes/ab.md`)).toBe('alpha\nbeta');
    // One conflict (alpha and beta both write notes/ab.md, each through a glob it owns), resolved by a redo on the integration head.
    const merges = events.filter((e) => e.event.type === 'merge').map((e) => e.event.outcome);
    expect(merges.sort()).toEqual(['conflict', 'merged', 'merged', 'resolved'].sort());
    expect(json.verification?.verdict).toBe('PASS');

    // The result is in the user's repository; the half-written file of the dead attempt is not in it.
    expect(git(repo, 'rev-parse', json.integration_branch)).toBe(json.head);
    expect(git(repo, 'show', `${json.integration_branch}:notes/ab.md`)).toBe('alpha\nbeta');
    expect(git(repo, 'show', `${json.integration_branch}:src/a.js`)).toContain('// Adds two numbers (alpha).');
    expect(git(repo, 'show', `${json.integration_branch}:src/b.js`)).toContain('// Subtracts (beta).');
    expect(git(repo, 'show', `${json.integration_branch}:src/c.js`)).toContain('// Multiplies (gamma).');
    expect(git(repo, 'ls-tree', '-r', '--name-only', json.integration_branch)).not.toContain('half.txt');
    // The user's checkout is untouched: same commit, clean, no worktree of orca's left in it.
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(base);
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(git(repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    // The shared remote holds the run's refs, not branches of its own.
    const remoteRefs = git(repo, 'ls-remote', share)
      .split('\n')
      .map((line) => line.split('\t')[1]);
    expect(remoteRefs).toEqual(expect.arrayContaining([`refs/orca/${runId}/integration`, `refs/orca/${runId}/gamma`]));
    expect(remoteRefs.filter((ref) => ref?.startsWith('refs/heads/'))).toEqual([]);

    // The board says where each task ran.
    const status = await cli(['status', runId, '--json'], { REDIS_URL: redisUrl, ORCA_PREFIX: prefix });
    const board = JSON.parse(status.stdout) as { tasks: Array<{ task_id: string; host?: string }> };
    expect(board.tasks.find((t) => t.task_id === 'gamma')?.host).toBe(survivor);
    expect(new Set(board.tasks.filter((t) => ['alpha', 'beta'].includes(t.task_id)).map((t) => t.host))).toEqual(
      new Set(['host-a', 'host-b']),
    );
  });

  it('fails a job that names a path the host cannot see at once, saying to run with --share', async () => {
    const repo = path.join(root, 'user', 'unseen');
    mkdirSync(repo, { recursive: true });
    git(repo, 'init', '-q', '-b', 'main');
    writeFileSync(path.join(repo, 'README.md'), '# unseen\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'initial');
    const script = path.join(root, 'one-note.json');
    cpSync(path.join(packageRoot(), 'tests', 'fixtures', 'scripts', 'one-note.json'), script);
    const survivors = workers.filter((w) => w.child.exitCode === null);
    expect(survivors.length).toBeGreaterThan(0);
    const agent = await cli(
      ['agent', 'write a note', '--role', 'worker', '--repo', repo, '--script', script, '--json', '--no-local-workers'],
      {
        REDIS_URL: redisUrl,
        ORCA_PREFIX: prefix,
        ORCA_HOME: path.join(root, 'coordinator-home'),
      },
    );
    expect(agent.code).not.toBe(0);
    expect(agent.stderr).toMatch(
      new RegExp(`the job names the repository ${repo}, which this host \\(host-[ab]\\) cannot see: run with --share`),
    );
  });

  /**
   * Waits until the task's agent has started the Bash command that names `gate`, read from the
   * run's event stream (its tool_call event), not from the task's board row: the row's current tool
   * is cleared by later events (a stalled job queued again), while the stream keeps every event.
   * Returns the worker (host, pid) whose workspace the call ran in: the task's latest one before it.
   */
  async function toolRuns(runId: string, taskId: string, gate: string, run: { child: ChildProcess; stderr: string; stdout: string }) {
    let after = '0';
    let where: { host?: unknown; pid?: unknown } | undefined;
    for (;;) {
      for (const { id, entry } of await readRunEvents(redis, keys, runId, after)) {
        after = id;
        if (entry.task_id !== taskId) continue;
        const event = entry.event as { type: string; name?: string; input?: { command?: unknown }; host?: unknown; pid?: unknown };
        if (event.type === 'workspace') where = { host: event.host, pid: event.pid };
        const command = event.input?.command;
        if (event.type === 'tool_call' && event.name === 'Bash' && typeof command === 'string' && command.includes(gate)) {
          if (!where) throw new Error(`${taskId} reached its gate with no workspace event before it`);
          return where;
        }
      }
      if (run.child.exitCode !== null)
        throw new Error(
          `the run ended before ${taskId} reached its gate:\n${run.stderr}\n${run.stdout}\n${workers.map((w) => w.stderr).join('\n')}`,
        );
      await sleep(100);
    }
  }

  function startRun(args: string[], env: NodeJS.ProcessEnv) {
    const child = spawn(process.execPath, [compiledEntry('coordinator/cli.ts'), ...args], {
      cwd: packageRoot(),
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const runId = new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const named = /^orca: run (\S+)$/m.exec(stderr);
        if (named) resolve(named[1]!);
      });
      child.on('close', () => reject(new Error(`orca run ended before it named its run:\n${stderr}`)));
    });
    runId.catch(() => {});
    const done = once(child, 'close').then(([code]) => ({ code: code as number | null, stdout, stderr }));
    return {
      child: child as ChildProcess,
      runId,
      done,
      get stderr() {
        return stderr;
      },
      get stdout() {
        return stdout;
      },
    };
  }

  async function cli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const run = startRun(args, { ...process.env, HOME: path.join(root, 'coordinator-user-home'), ORCA_LSP: 'off', ...env });
    return run.done;
  }
});
