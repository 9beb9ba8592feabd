import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECK_COMMAND, makeRunRepo } from '../../bench/runScript.js';
import { RunEvents } from '../board/runEvents.js';
import { checkedWriter, writeRunScript } from '../faults/faultRun.js';
import { git } from '../support/gitRepo.js';
import { OrcaTestEnv } from '../support/orcaEnv.js';

/**
 * Every command's bad input is one line: `orca: …` on stderr, nothing on stdout, exit 2, the help
 * only on --help, and nothing written (no Redis key, no run record, the repository as it was).
 */

let env: OrcaTestEnv;
let repo: string;
let base: string;
let script: string;
const ENDED = 'r20260101-120000-e0d0';
const WORKING = 'r20260101-120000-b0a0';

beforeAll(async () => {
  env = await OrcaTestEnv.open({ shared: true });
  repo = path.join(env.dir('repo'), 'project');
  base = makeRunRepo(repo);
  script = writeRunScript(env.dir('script'), [{ id: 'one', paths: ['one.txt'], turns: checkedWriter('one.txt') }]);
  const ended = new RunEvents(env.redis, env.keys, ENDED);
  await ended.created(repo, base);
  await ended.run({ type: 'run_phase', phase: 'verifying' });
  const usage = { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_creation_tokens: 0, thinking_tokens: 0 };
  await ended.run({ type: 'run_end', status: 'PASS', head: base, usage, cost_usd: 0, detail: 'verified' });
  const working = new RunEvents(env.redis, env.keys, WORKING);
  await working.created(repo, base);
  await working.run({ type: 'run_phase', phase: 'dispatching' });
});

afterAll(async () => {
  await env.close();
});

interface BadInput {
  args: () => string[];
  line: RegExp;
  env?: NodeJS.ProcessEnv;
}

const UNREACHABLE = { REDIS_URL: 'redis://127.0.0.1:1' };

const TABLE: Record<string, BadInput> = {
  'no command': { args: () => [], line: /^orca: name a command, e\.g\. orca run "TASK" \(orca --help lists them\)\.$/ },
  'an unknown command': { args: () => ['frob'], line: /^orca: unknown command 'frob' \(orca --help says more\)$/ },
  'an unknown flag': { args: () => ['run', '--bogus', 'a task'], line: /^orca: unknown option '--bogus' \(orca run --help says more\)$/ },
  'a bad number': { args: () => ['run', '--workers', '0', 'a task'], line: /^orca: option '--workers <n>' argument '0' is invalid/ },
  'a bad effort': { args: () => ['agent', '--role', 'explore', '--effort', 'huge', 'hi'], line: /expected one of low/ },
  'run without a task': { args: () => ['run', '--repo', repo], line: /^orca: a task is needed/ },
  'agent without --role': { args: () => ['agent', 'hi'], line: /^orca: required option '--role <role>' not specified/ },
  'abort without a run': { args: () => ['abort'], line: /^orca: missing required argument 'run' \(orca abort --help says more\)$/ },
  'abort of an unknown run': { args: () => ['abort', 'r20260101-000000-0000'], line: /^orca: run r20260101-000000-0000 is not recorded/ },
  'abort of an ended run': { args: () => ['abort', ENDED], line: new RegExp(`^orca: run ${ENDED} has already ended \\(PASS\\)`) },
  'approve of an unknown run': { args: () => ['approve', 'r20260101-000000-0000'], line: /is not recorded/ },
  'approve of an ended run': { args: () => ['approve', ENDED], line: /has already ended \(PASS\): there is no plan to approve/ },
  'approve of a run not waiting': {
    args: () => ['approve', WORKING],
    line: new RegExp(`^orca: run ${WORKING} is not waiting for approval \\(it is dispatching\\)`),
  },
  'reject of a run not waiting': { args: () => ['reject', WORKING], line: /is not waiting for approval/ },
  'a run id that is not one': { args: () => ['status', 'bad!id'], line: /^orca: "bad!id" is not a run id/ },
  'status of an unknown run': { args: () => ['status', 'r20260101-000000-0000'], line: /is not recorded/ },
  'allow of an unknown run': { args: () => ['allow', 'r20260101-000000-0000'], line: /is not recorded/ },
  'resume of an unknown run': { args: () => ['resume', 'r20260101-000000-0000'], line: /has no events in Redis/ },
  'an unknown card': { args: () => ['memory', 'show', 'mem_nosuch'], line: /^orca: there is no card mem_nosuch/ },
  'a memory flag unknown': {
    args: () => ['memory', 'list', '--bogus'],
    line: /^orca: unknown option '--bogus' \(orca memory list --help says more\)$/,
  },
  'an unknown role': { args: () => ['prompt', '--role', 'nosuch'], line: /^orca: unknown role "nosuch"/ },
  'a bad age': { args: () => ['clean', '--older-than', 'soon'], line: /^orca: option '--older-than <age>' argument 'soon' is invalid/ },
  'a bad port': { args: () => ['serve', '--port', 'x'], line: /expected a port number/ },
  'REDIS_URL not a URL': {
    args: () => ['status'],
    env: { REDIS_URL: 'notaurl' },
    line: /^orca: "notaurl" is not a Redis URL: set REDIS_URL to one such as redis:\/\/127\.0\.0\.1:6379/,
  },
  'run with Redis unreachable': {
    args: () => ['run', 'a task', '--repo', repo, '--script', script, '--check', CHECK_COMMAND],
    env: UNREACHABLE,
    line: /^orca: Redis does not answer at redis:\/\/127\.0\.0\.1:1/,
  },
  'agent with Redis unreachable': {
    args: () => ['agent', '--role', 'explore', 'look', '--repo', repo, '--script', script],
    env: UNREACHABLE,
    line: /^orca: Redis does not answer at redis:\/\/127\.0\.0\.1:1/,
  },
};

/** What a command could have written: the env's Redis keys (with each stream's length) and run records, the repository's refs. */
async function written(): Promise<unknown> {
  // The env's own queue keeps BullMQ's keys (a stalled check) up to date: they are not the commands'.
  const keys = (await env.redis.keys(`${env.prefix}:*`)).filter((key) => !key.startsWith(env.keys.bull)).sort();
  const sizes = await Promise.all(
    keys.map(async (key) => {
      const type = await env.redis.type(key);
      if (type === 'stream') return env.redis.xlen(key);
      if (type === 'set') return (await env.redis.smembers(key)).sort();
      return type;
    }),
  );
  const records = readdirSync(env.home, { recursive: true }).sort();
  return {
    keys,
    sizes,
    records,
    refs: git(repo, 'for-each-ref', '--format=%(refname) %(objectname)'),
    head: git(repo, 'rev-parse', 'HEAD'),
  };
}

describe('bad input to every command', () => {
  it.each(Object.entries(TABLE))('%s: one line, exit 2, nothing written', async (_name, bad) => {
    const before = await written();
    const run = await env.cli(bad.args(), { env: bad.env, cwd: repo });
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 2, stdout: '' });
    const lines = run.stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(bad.line);
    expect(await written()).toEqual(before);
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(base);
  });

  it('prints the help on --help only, and the version on --version', async () => {
    const help = await env.cli(['run', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: orca run [options] [task...]');
    const version = await env.cli(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});
