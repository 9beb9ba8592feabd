import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import getPort from 'get-port';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECK_COMMAND, makeRunRepo } from '../../bench/runScript.js';
import { createSampleRepo } from '../../coordinator/demo/sampleRepo.js';
import { packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { checkedWriter, OrcaProcess, type RunJson, waitForGate, writeRunScript } from '../faults/faultRun.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';

const DEMO_SCRIPT = path.join(packageRoot(), 'coordinator', 'demo', 'demo-script.json');

/**
 * A real Redis Cluster of three masters on loopback, made here with `redis-cli --cluster create`:
 * orca reaches it through REDIS_CLUSTER_NODES, its keys all carry the one hash tag, and a whole
 * run, its board and an abort work on it.
 */
describe('orca on a Redis Cluster', { timeout: SLOW_TEST_MS }, () => {
  let dir: string;
  const servers: ChildProcess[] = [];
  let nodes: string;
  const prefix = `orca-cluster-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'orca-cluster-'));
    const ports = [await getPort({ host: '127.0.0.1' })];
    while (ports.length < 3) ports.push(await getPort({ host: '127.0.0.1', exclude: ports }));
    for (const port of ports) {
      const data = path.join(dir, String(port));
      mkdirSync(data);
      servers.push(
        spawn(
          'redis-server',
          [
            '--port',
            String(port),
            '--bind',
            '127.0.0.1',
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            path.join(data, 'nodes.conf'),
            '--save',
            '',
            '--appendonly',
            'no',
            '--dir',
            data,
          ],
          { stdio: 'ignore' },
        ),
      );
    }
    for (const port of ports) await until(() => redisCli(port, 'ping') === 'PONG');
    nodes = ports.map((port) => `127.0.0.1:${port}`).join(',');
    execFileSync('redis-cli', ['--cluster', 'create', ...nodes.split(','), '--cluster-replicas', '0', '--cluster-yes'], { stdio: 'pipe' });
    for (const port of ports) await until(() => redisCli(port, 'cluster', 'info').includes('cluster_state:ok'));
  });

  afterAll(async () => {
    for (const server of servers) {
      if (server.exitCode === null && server.signalCode === null) {
        const exited = once(server, 'exit');
        server.kill('SIGKILL');
        await exited;
      }
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const clusterEnv = () => ({ REDIS_CLUSTER_NODES: nodes, ORCA_PREFIX: prefix });

  it('runs the demo PASS, shows it with orca status and orca board, every key under one hash tag', async () => {
    const env = await OrcaTestEnv.open();
    const repo = createSampleRepo(path.join(env.dir('repo'), 'shop-lib')).dir;
    const run = await env.cli(['run', 'the demo', '--repo', repo, '--script', DEMO_SCRIPT, '--json', '--workers', '2'], {
      env: clusterEnv(),
      deadlineMs: 240_000,
    });
    const json = JSON.parse(run.stdout) as RunJson & { tasks: Array<{ id: string; status: string }> };
    expect(run.code, run.stderr).toBe(0);
    expect(json.status).toBe('PASS');
    expect(json.tasks.map((t) => t.status)).toEqual(['verified', 'verified', 'verified']);

    const status = await env.cli(['status', json.run_id, '--json'], { env: clusterEnv() });
    expect(status.code, status.stderr).toBe(0);
    const board = JSON.parse(status.stdout) as { run: { status?: string }; tasks: Array<{ task_id: string; status: string }> };
    expect(board.run.status).toBe('PASS');
    expect(board.tasks.filter((t) => !t.task_id.startsWith('_')).map((t) => t.status)).toEqual(['verified', 'verified', 'verified']);
    // Without a terminal, orca board prints one snapshot.
    const shown = await env.cli(['board', json.run_id], { env: clusterEnv() });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`run ${json.run_id}`);

    // Every key the run wrote (queue, events, task hashes, leases) is under {prefix}: one slot, on one node.
    const keys = await clusterKeys(nodes);
    expect(keys.length).toBeGreaterThan(10);
    expect(keys.filter((key) => !key.startsWith(`{${prefix}}:`))).toEqual([]);
    expect(keys.some((key) => key.startsWith(`{${prefix}}:bull:agents:`))).toBe(true);
    expect(keys).toContain(`{${prefix}}:run:${json.run_id}:events`);
  });

  it('aborts a run with orca abort: the abort reaches the worker through the cluster', async () => {
    const env = await OrcaTestEnv.open();
    const repo = path.join(env.dir('repo'), 'project');
    makeRunRepo(repo);
    const gates = mkdtempSync(path.join('/var/tmp', 'orca-gates-'));
    try {
      const script = writeRunScript(env.dir('script'), [
        { id: 'slow', paths: ['src/slow.txt'], turns: checkedWriter('src/slow.txt', [waitForGate(path.join(gates, 'never'))]) },
      ]);
      const run = new OrcaProcess(
        env,
        ['run', 'one file', '--repo', repo, '--script', script, '--check', CHECK_COMMAND, '--json', '--workers', '1'],
        clusterEnv(),
      );
      const runId = await run.runId;
      const cluster = connect(nodes);
      try {
        const keys = { events: () => `{${prefix}}:run:${runId}:events` };
        for (;;) {
          const entries = await cluster.xrange(keys.events(), '-', '+');
          if (entries.some(([, fields]) => fields.join(' ').includes('"tool_call"') && fields.join(' ').includes('slow'))) break;
          if (!run.running) throw new Error(`the run ended before its task reached its shell:\n${run.stderr}`);
          await sleep(100);
        }
      } finally {
        cluster.disconnect();
      }
      const abort = await env.cli(['abort', runId], { env: clusterEnv() });
      expect(abort.code, abort.stderr).toBe(0);
      const { code, json } = await run.json();
      expect(code, run.stderr).toBe(130);
      expect(json.status).toBe('ABORTED');
      expect(json.tasks.map((t) => [t.id, t.status])).toEqual([['slow', 'aborted']]);
    } finally {
      writeFileSync(path.join(gates, 'never'), '');
      rmSync(gates, { recursive: true, force: true });
    }
  });
});

function redisCli(port: number, ...args: string[]): string {
  try {
    return execFileSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8', stdio: 'pipe' }).trim();
  } catch {
    return '';
  }
}

async function until(ready: () => boolean): Promise<void> {
  while (!ready()) await sleep(100);
}

function connect(nodes: string): Cluster {
  return new Cluster(nodes.split(',').map((node) => ({ host: node.split(':')[0]!, port: Number(node.split(':')[1]) })));
}

async function clusterKeys(nodes: string): Promise<string[]> {
  const cluster = connect(nodes);
  try {
    await cluster.ping();
    const found: string[] = [];
    for (const node of cluster.nodes('master')) {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(cursor, 'COUNT', 1000);
        cursor = next;
        found.push(...keys);
      } while (cursor !== '0');
    }
    return found;
  } finally {
    cluster.disconnect();
  }
}
