import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { compiledEntry, packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { readRunBoard } from '../../shared/infra/board/readBoard.js';
import { isAborted } from '../../shared/infra/queue/runAbort.js';
import { redisUrl } from '../../shared/infra/redis/redisConnection.js';
import { OrcaTestEnv } from '../support/orcaEnv.js';
import { RunEvents } from './runEvents.js';
import { waitFor } from './waitFor.js';

const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

describe('orca status and orca board', () => {
  it('orca status prints the latest run’s board, and --json the same data as the board reads', async () => {
    const env = await OrcaTestEnv.open();
    const older = new RunEvents(env.redis, env.keys, 'r-older', Date.UTC(2026, 0, 1));
    await older.created();
    const run = new RunEvents(env.redis, env.keys, 'r-latest', Date.UTC(2026, 0, 2));
    await run.created('/repos/shop');
    await run.task('t1');
    await run.state('t1', 'queued');
    await run.starts('t1');

    const text = await env.cli(['status']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^run r-latest · running/);
    expect(text.stdout).toMatch(/running\s+t1\s+worker\s+–\s+\S+\s+135\/20\s+\$0\.0100\s+Bash npm test -- cart/);

    const json = await env.cli(['status', 'r-older', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(JSON.parse(JSON.stringify(await readRunBoard(env.redis, env.keys, 'r-older'))));
  });

  it('orca status says in one line what is wrong with a run id, an unknown run, or a Redis with no runs', async () => {
    const env = await OrcaTestEnv.open();
    const none = await env.cli(['status']);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(
      `orca: no runs are recorded on ${redisUrl()} (prefix ${env.prefix}): start one with orca run or orca agent.\n`,
    );
    const bad = await env.cli(['status', '../etc']);
    expect([bad.code, bad.stderr]).toEqual([2, 'orca: "../etc" is not a run id (it looks like r20260101-120000-ab12).\n']);
    const unknown = await env.cli(['board', 'r-nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^orca: run r-nope is not recorded on .*: check the id, or run orca status for the latest\.\n$/);
  });

  it('orca board without a terminal prints one snapshot and ends', async () => {
    const env = await OrcaTestEnv.open();
    const run = new RunEvents(env.redis, env.keys, 'r-snap');
    await run.created();
    await run.task('t1');
    const result = await env.cli(['board']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^run r-snap · running/);
    expect(result.stdout).toMatch(/pending\s+t1\s+worker/);
    expect(result.stdout).not.toMatch(ANSI);
  });

  it('orca board in a terminal redraws as events arrive, aborts the run after y, and quits on q', async () => {
    const env = await OrcaTestEnv.open();
    const run = new RunEvents(env.redis, env.keys, 'r-live');
    await run.created();
    await run.task('t1');
    await run.state('t1', 'queued');
    await run.starts('t1');

    // `script` gives the board a real pseudo-terminal (raw mode, size, alternate screen).
    const command = `stty cols 120 rows 40; exec ${process.execPath} ${compiledEntry('coordinator/cli.ts')} board r-live`;
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      cwd: packageRoot(),
      env: env.processEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let screen = '';
    child.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (screen += chunk.toString()));
    const exited = once(child, 'exit');
    try {
      const plain = () => screen.replace(ANSI, '');
      await waitFor(
        () => /running\s+t1\s+worker.*Bash npm test -- cart/.test(plain()) && plain().includes('q quit · a abort the run'),
        () => screen,
      );

      await run.finishes('t1');
      await run.merged('t1');
      const since = screen.length;
      await waitFor(
        () => /merged\s+t1\s+worker.*merge: merged at d{12}/.test(screen.slice(since).replace(ANSI, '')),
        () => screen,
      );

      child.stdin.write('a');
      await waitFor(
        () => plain().includes('abort run r-live? y/n'),
        () => screen,
      );
      expect(await isAborted(env.redis, env.keys, 'r-live')).toBe(false);
      child.stdin.write('y');
      await waitFor(
        () => plain().includes('abort of run r-live published'),
        () => screen,
      );
      expect(await isAborted(env.redis, env.keys, 'r-live')).toBe(true);

      child.stdin.write('q');
      const [code] = (await exited) as [number | null];
      expect(code).toBe(0);
      // Back on the normal screen, the last frame stays behind in plain text.
      const after = screen.slice(screen.lastIndexOf('\x1b[?1049l'));
      expect(after.replace(ANSI, '')).toMatch(/merged\s+t1\s+worker/);
    } finally {
      if (child.exitCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    }
  });
});
