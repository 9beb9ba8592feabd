import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunJson } from '../../coordinator/run/runResult.js';
import { readRunEvents } from '../../shared/infra/board/runEvents.js';
import { redisUrl } from '../../shared/infra/redis/redisConnection.js';
import { commitFiles, git } from '../support/gitRepo.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { pathWithout } from '../support/pathWithout.js';
import { plannedRun } from './support.js';

/**
 * Red team, integration checks (issue 13): a worker adds a test that reads orca's credentials and
 * writes outside its worktree; the integration checks run it on the merged tree. It must see none
 * of the credentials, and (with bwrap) write nothing outside the integration worktree.
 */

const CHECK = 'node --test';
const SECRETS = {
  ANTHROPIC_API_KEY: 'sk-ant-redteam-0123456789abcdef',
  ORCA_BOARD_TOKEN: 'redteam-board-token-0123456789',
};
/** orca's Redis, with a password in its URL (this Redis has none set: the client goes on without it). */
const REDIS_PASSWORD = 'redteam-redis-password';

/**
 * The test the worker adds: it prints what it can see and tries to leave a file outside its tree,
 * in a folder of its own choosing and in the user's checkout (which the sandbox shows read-only).
 */
function leakTest(targets: Record<string, string>): string {
  return `const test = require('node:test');
const fs = require('node:fs');
const { spawnSync } = require('node:child_process');
test('leak', () => {
  const seen = 'key=' + (process.env.ANTHROPIC_API_KEY ?? 'unset') + ' board=' + (process.env.ORCA_BOARD_TOKEN ?? 'unset') + ' redis=' + (process.env.REDIS_URL ?? 'unset');
  console.log('LEAK ' + seen);
  for (const [name, dir] of Object.entries(${JSON.stringify(targets)})) {
    try {
      fs.writeFileSync(dir + '/escaped-' + process.pid + '.txt', seen);
      console.log('LEAK ' + name + ' written');
    } catch (error) {
      console.log('LEAK ' + name + ' write failed: ' + error.code);
    }
  }
  // Refs belong to the coordinator: a test that moves one changes what the run delivers.
  const ref = spawnSync('git', ['update-ref', 'refs/heads/redteam-' + process.pid, 'HEAD'], { encoding: 'utf8' });
  console.log('LEAK ref ' + (ref.status === 0 ? 'moved' : 'refused'));
});
`;
}

function runScript(targets: Record<string, string>) {
  const report = { summary: 'added a test', unresolved: [], claimed_checks: [{ command: CHECK, exit_code: 0 }] };
  return plannedRun(
    [
      {
        id: 'tests',
        title: 'add a test',
        instructions: 'Add test/leak.test.cjs.',
        paths: ['test/leak.test.cjs'],
        depends_on: [],
        checks: [CHECK],
      },
    ],
    [
      {
        when: { role: 'worker', task: 'tests' },
        turns: [
          { tools: [{ name: 'Write', input: { file_path: 'test/leak.test.cjs', content: leakTest(targets) } }] },
          { tools: [{ name: 'Bash', input: { command: CHECK } }] },
          { tools: [{ name: 'Report', input: report }] },
        ],
      },
      {
        when: { role: 'verification' },
        turns: [
          {
            tools: [
              {
                name: 'Report',
                input: { verdict: 'PASS', checks: [], problems: [] },
              },
            ],
          },
        ],
      },
    ],
  );
}

let env: OrcaTestEnv;

beforeAll(async () => {
  env = await OrcaTestEnv.open({ shared: true });
});

afterAll(async () => {
  await env?.close();
}, SLOW_TEST_MS);

/** A key the agent's test tries to write into orca's Redis, and a channel it publishes on. */
const REDIS_KEY = `orca-redteam-${process.pid}`;

/**
 * orca's Redis, which only a check on the host's network reaches (its loopback): the test writes a
 * key and publishes on a channel there, and prints what Redis answered.
 */
const NET_TEST = (port: number) => `const test = require('node:test');
const net = require('node:net');
test('net', async () => {
  const outcome = await new Promise((resolve) => {
    const socket = net.connect(${port}, '127.0.0.1', () => {
      socket.write('SET ${REDIS_KEY} planted\\r\\nPUBLISH ${REDIS_KEY} hello\\r\\n');
      socket.once('data', (data) => { socket.destroy(); resolve('connected ' + JSON.stringify(String(data))); });
    });
    socket.on('error', (error) => resolve('failed ' + error.code));
  });
  console.log('NET ' + outcome);
});
`;

interface LeakRun {
  repo: string;
  outside: string;
  log: string;
  sandbox: unknown;
  tampered: unknown;
}

/** A whole run whose worker adds the leak test; what its integration check printed. */
async function leakRun(name: string, options: { bwrap: boolean; checkNetwork?: 'none' | 'host' }): Promise<LeakRun> {
  const repo = env.dir(name);
  git(repo, 'init', '-q', '-b', 'main');
  commitFiles(
    repo,
    {
      'package.json': JSON.stringify({ name: 'p', private: true, scripts: { test: CHECK } }),
      'test/ok.test.cjs': "const test = require('node:test');\ntest('ok', () => {});\n",
      'test/net.test.cjs': NET_TEST(Number(new URL(redisUrl()).port || 6379)),
    },
    'initial',
  );
  // Outside every worktree, inside this test's folder.
  const outside = env.dir(`${name}-outside`);
  const scriptFile = path.join(env.dir(`${name}-script`), 'script.json');
  writeFileSync(scriptFile, JSON.stringify(runScript({ outside, checkout: repo })));
  const url = new URL(redisUrl());
  url.password = REDIS_PASSWORD;
  const args = ['run', 'add a test', '--repo', repo, '--script', scriptFile, '--json', '--workers', '1', '--check', CHECK];
  // Without bwrap the run refuses to start unless told --sandbox off (sandboxLine.test.ts).
  const sandbox = options.bwrap ? [] : ['--sandbox', 'off'];
  const run = await env.cli([...args, ...sandbox, ...(options.checkNetwork ? ['--check-network', options.checkNetwork] : [])], {
    env: { ...SECRETS, REDIS_URL: url.toString(), ...(options.bwrap ? {} : { PATH: pathWithout('bwrap', env.dir(`${name}-bin`)) }) },
    deadlineMs: 240_000,
  });
  const json = JSON.parse(run.stdout) as RunJson;
  // The worker's commit holds the test (without a sandbox the check that moved a ref takes the merge back off the result branch).
  expect(git(repo, 'show', `${json.tasks[0]?.commit}:test/leak.test.cjs`)).toContain('LEAK');
  const events = (await readRunEvents(env.redis, env.keys, json.run_id, '0', 10_000)).map(({ entry }) => entry.event);
  const check = events.find((event) => event.type === 'check' && event.task_id === undefined && event.command === CHECK);
  expect(check, JSON.stringify(events.filter((event) => event.type === 'check'))).toBeDefined();
  return { repo, outside, log: readFileSync(String(check!.log), 'utf8'), sandbox: check!.sandbox, tampered: check!.tampered };
}

const escaped = (dir: string) =>
  readdirSync(dir)
    .filter((name) => name.startsWith('escaped-'))
    .map((name) => readFileSync(path.join(dir, name), 'utf8'));

describe('integration checks run the agents’ tests sandboxed, without orca’s credentials', { timeout: SLOW_TEST_MS }, () => {
  for (const sandbox of ['bwrap', 'none'] as const) {
    it(`a test that reads ANTHROPIC_API_KEY, writes outside its worktree, moves a ref and writes to Redis gets none of it (sandbox: ${sandbox})`, async () => {
      await env.redis.del(REDIS_KEY);
      const { repo, outside, log, sandbox: recorded, tampered } = await leakRun(`leak-${sandbox}`, { bwrap: sandbox === 'bwrap' });
      expect(recorded).toBe(sandbox);
      expect(log).toContain(`LEAK key=unset board=unset redis=unset`);
      expect(log).not.toContain(SECRETS.ANTHROPIC_API_KEY);
      expect(log).not.toContain(REDIS_PASSWORD);
      if (sandbox === 'bwrap') {
        // The check's network is its own by default: orca's Redis on the host's loopback is not in it.
        expect(log).toContain('NET failed ECONNREFUSED');
        expect(await env.redis.exists(REDIS_KEY)).toBe(0);
        expect(log).toContain('LEAK ref refused');
        expect(git(repo, 'for-each-ref', '--format=%(refname)', 'refs/heads/')).not.toContain('redteam-');
        // The user's checkout is read-only in the sandbox; a folder under the host's /tmp is not even there.
        expect(log).toContain('LEAK checkout write failed: EROFS');
        expect(log).toContain('LEAK outside write failed: ENOENT');
        // Neither the integration check nor the worker's own run of the test (sandboxed Bash) left a file.
        expect(escaped(outside)).toEqual([]);
        expect(escaped(repo)).toEqual([]);
      } else {
        // --sandbox off: the start line says the checks reach orca's Redis, and they do.
        expect(log).toContain('NET connected');
        await env.redis.del(REDIS_KEY);
        // The ref it made is put back, and the check does not pass for it.
        expect(log).toContain('LEAK ref moved');
        expect(git(repo, 'for-each-ref', '--format=%(refname)', 'refs/heads/')).not.toContain('redteam-');
        expect(String(tampered)).toMatch(/refs\/heads\/redteam-\d+ was created at [0-9a-f]{12}, put back/);
        // Without bwrap nothing stops the writes (orca says so at the start); what they hold is no secret.
        expect(log).toContain('LEAK outside written');
        const leaked = [...escaped(outside), ...escaped(repo)];
        expect(leaked.length).toBeGreaterThan(0);
        for (const text of leaked) expect(text).toBe(`key=unset board=unset redis=unset`);
      }
    });
  }

  it('with --check-network host, and only then, a sandboxed check reaches the host network', async () => {
    const { log, sandbox } = await leakRun('leak-host-network', { bwrap: true, checkNetwork: 'host' });
    expect(sandbox).toBe('bwrap');
    expect(log).toContain('NET connected');
    await env.redis.del(REDIS_KEY);
  });

  it('with --check-network none the checks reach nothing on the network', async () => {
    const { log, sandbox } = await leakRun('leak-offline', { bwrap: true, checkNetwork: 'none' });
    expect(sandbox).toBe('bwrap');
    expect(log).toContain('NET failed ECONNREFUSED');
    expect(log).toContain(`LEAK key=unset board=unset redis=unset`);
  });

  it('refuses a --check-network it does not know, in one line', async () => {
    const run = await env.cli(['run', 'anything', '--check-network', 'some']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("option '--check-network <mode>' argument 'some' is invalid. Allowed choices are proxy, host, none.");
  });
});
