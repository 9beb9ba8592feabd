import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import getPort from 'get-port';
import { afterEach, describe, expect, it } from 'vitest';
import { CHECK_COMMAND, makeRunRepo } from '../../bench/runScript.js';
import { connectRedis, pingRedis } from '../../shared/infra/redis/redisConnection.js';
import { git } from '../support/gitRepo.js';
import { OrcaTestEnv } from '../support/orcaEnv.js';
import { checkedWriter, is, OrcaProcess, runEvents, waitForEntry, waitForGate, writeRunScript } from './faultRun.js';

/**
 * Redis restarted in the middle of a run. Never the machine's shared Redis: a private
 * `redis-server` on a free port, with an append-only file in a temp folder (as compose.yaml runs
 * it), so a restart keeps the queue and the run's events.
 */
class PrivateRedis {
  private child?: ChildProcess;

  constructor(
    readonly port: number,
    readonly dir: string,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.child = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
        '--dir',
        this.dir,
      ],
      {
        stdio: 'ignore',
      },
    );
    for (let attempt = 0; ; attempt += 1) {
      try {
        await pingRedis(this.url, 500);
        return;
      } catch (error) {
        if (attempt > 100 || this.child.exitCode !== null) throw error;
        await sleep(50);
      }
    }
  }

  /** SIGTERM, as a service manager restarting it would; resolves once it has exited. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
}

const servers: PrivateRedis[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop();
});

describe('Redis restarted mid-run', () => {
  it('has every client reconnect: the run completes and passes, with its events and queue intact', async () => {
    const env = await OrcaTestEnv.open();
    const server = new PrivateRedis(await getPort({ host: '127.0.0.1' }), env.dir('redis'));
    servers.push(server);
    await server.start();
    const redis = connectRedis(server.url);
    // This connection rides out the restart like orca's own: its refused reconnects are expected.
    redis.on('error', () => {});
    try {
      const repo = path.join(env.dir('repo'), 'project');
      const base = makeRunRepo(repo);
      const gate = path.join(repo, '.git', 'orca-test-gate');
      const script = writeRunScript(env.dir('script'), [
        { id: 'before', paths: ['src/before.txt'], turns: checkedWriter('src/before.txt') },
        { id: 'across', paths: ['src/across.txt'], turns: checkedWriter('src/across.txt', [waitForGate(gate)]) },
      ]);
      // The coordinator's own local workers: every orca process of the run talks to this Redis.
      const run = new OrcaProcess(
        env,
        ['run', 'two files', '--repo', repo, '--script', script, '--check', CHECK_COMMAND, '--json', '--workers', '2'],
        {
          REDIS_URL: server.url,
        },
      );
      const runId = await run.runId;
      await waitForEntry(redis, env.keys, runId, is.taskState('before', 'merged'), 'task before merging');
      await waitForEntry(redis, env.keys, runId, is.toolCall('across', 'Bash'), 'task across reaching its shell');
      const eventsBefore = (await runEvents(redis, env.keys, runId)).length;

      await server.stop();
      await sleep(500);
      await server.start();
      // Events written before the restart survived it.
      expect((await runEvents(redis, env.keys, runId)).length).toBeGreaterThanOrEqual(eventsBefore);
      writeFileSync(gate, '');

      const { code, json } = await run.json();
      expect(code, run.stderr).toBe(0);
      // The outage is told once, in one line each way, not as a stack per connection and retry.
      expect(run.stderr).not.toContain('Unhandled error event');
      expect(run.stderr.match(/^orca: Redis at 127\.0\.0\.1:\d+ does not answer \(.+\); reconnecting$/gm)).toHaveLength(1);
      expect(run.stderr.match(/^orca: Redis at 127\.0\.0\.1:\d+ answers again$/gm)).toHaveLength(1);
      expect(json.status).toBe('PASS');
      expect(json.tasks.map((task) => [task.id, task.status, task.attempts])).toEqual([
        ['before', 'verified', 1],
        ['across', 'verified', 1],
      ]);
      expect(git(repo, 'show', `${json.integration_branch}:src/across.txt`)).toBe('src/across.txt written');
      expect(git(repo, 'rev-list', '--count', `${base}..orca/${runId}/across`)).toBe('1');
      const ended = (await runEvents(redis, env.keys, runId)).filter((e) => e.source === 'run' && e.event.type === 'run_end');
      expect(ended.map((e) => e.event.status)).toEqual(['PASS']);
    } finally {
      redis.disconnect();
    }
  });
});
