import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BoardSource } from '../../coordinator/board/boardSource.js';
import { type BoardServer, startBoardServer } from '../../coordinator/board/web/boardServer.js';
import { stamp } from '../../shared/core/events/agentEvent.js';
import { Transcript } from '../../shared/core/loop/transcript.js';
import { readRunBoard } from '../../shared/infra/board/readBoard.js';
import { isAborted } from '../../shared/infra/queue/runAbort.js';
import type { Keys } from '../../shared/infra/redis/keys.js';
import { commitFiles, git, makeRepo } from '../support/gitRepo.js';
import { OrcaTestEnv } from '../support/orcaEnv.js';
import { testRedis } from '../support/redis.js';
import { tempDir } from '../support/tempDir.js';
import { httpRequest } from './httpRequest.js';
import { RunEvents } from './runEvents.js';

const TOKEN = 'a-board-token-long-enough';
const opened: Array<{ server: BoardServer; source: BoardSource }> = [];

async function serve(keys: Keys, token?: string): Promise<string> {
  const source = await BoardSource.open({ keys });
  const server = await startBoardServer(source, { host: '127.0.0.1', port: 0, token });
  opened.push({ server, source });
  return server.url;
}

afterEach(async () => {
  for (const { server, source } of opened.splice(0)) {
    await server.close();
    source.close();
  }
});

describe('the web board server', () => {
  it('serves the page and a JSON API with the same data as orca status --json', async () => {
    const { redis, keys } = testRedis();
    const run = new RunEvents(redis, keys, 'r-api');
    await run.created();
    await run.task('t1');
    const url = await serve(keys);

    const page = await httpRequest(url);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<script type="module" src="/assets/page.js"></script>');
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect((await httpRequest(`${url}assets/page.js`)).body).toContain('new EventSource(');
    for (const module of ['detail.js', 'elements.js', 'page.css']) {
      expect((await httpRequest(`${url}assets/${module}`)).status, module).toBe(200);
    }
    expect((await httpRequest(`${url}assets/page.js`)).headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect((await httpRequest(`${url}assets/../boardServer.ts`)).status).toBe(404);

    const runs = JSON.parse((await httpRequest(`${url}api/runs`)).body) as {
      runs: Array<{ run_id: string; task_count: number; state: string }>;
    };
    expect(runs.runs.map((r) => [r.run_id, r.task_count, r.state])).toEqual([['r-api', 1, 'running']]);
    const board = JSON.parse((await httpRequest(`${url}api/runs/r-api`)).body);
    expect(board).toEqual(JSON.parse(JSON.stringify(await readRunBoard(redis, keys, 'r-api'))));

    expect(await httpRequest(`${url}api/runs/r-none`)).toMatchObject({ status: 404, body: '{"error":"run r-none is not recorded"}' });
    expect(await httpRequest(`${url}api/runs/r-api/tasks/t9`)).toMatchObject({ status: 404, body: '{"error":"run r-api has no task t9"}' });
    expect(await httpRequest(`${url}api/runs/a..b`)).toMatchObject({ status: 400, body: '{"error":"\\"a..b\\" is not a run id"}' });
  });

  it('shows a task’s transcript tail, its diff in the run’s repository, and its evidence with the check log', async () => {
    const { redis, keys } = testRedis();
    const repo = makeRepo({ 'src/cart.ts': 'export const total = 1;\n' });
    const base = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'checkout', '-q', '-b', 'orca/r-detail/t1');
    const commit = commitFiles(repo, { 'src/cart.ts': 'export const total = 2;\n' }, 'cart total');
    const folder = tempDir();
    const transcriptFile = path.join(folder, 'transcript.jsonl');
    const transcript = new Transcript(transcriptFile, { run: 'r-detail', task: 't1' });
    transcript.record(stamp({ type: 'turn_start', turn: 1 }));
    transcript.record(
      stamp({ type: 'tool_call', turn: 1, id: 'a', name: 'Edit', input: { file_path: 'src/cart.ts', old_string: '1', new_string: '2' } }),
    );
    transcript.record(
      stamp({
        type: 'tool_result',
        id: 'a',
        name: 'Edit',
        is_error: false,
        chars: 30,
        preview: 'Edited src/cart.ts: 1 replacement.',
        duration_ms: 3,
      }),
    );
    transcript.flush();
    const log = path.join(folder, 'check.log');
    writeFileSync(log, '> npm test\n12 passing\n');

    const run = new RunEvents(redis, keys, 'r-detail');
    await run.created(repo, base);
    await run.task('t1');
    await run.task('t2', ['t1']);
    await run.starts('t1', { start: base });
    await run.finishes('t1', commit, transcriptFile);
    await run.run({ type: 'check', command: 'npm test', exit_code: 0, tests_executed: 12, tree: commit, log, task_id: 't1' });
    await run.run({ type: 'gate', name: 'claims', ok: true, reason: 'every claimed check was run', task_id: 't1' });
    const url = await serve(keys);

    const detail = JSON.parse((await httpRequest(`${url}api/runs/r-detail/tasks/t1`)).body);
    expect(detail.task).toMatchObject({ task_id: 't1', commit });
    expect(detail.transcript.path).toBe(transcriptFile);
    expect(detail.transcript.lines.map((line: { type: string; text: string }) => `${line.type}: ${line.text}`)).toEqual([
      'turn_start: turn 1',
      'tool_call: Edit {"file_path":"src/cart.ts","old_string":"1","new_string":"2"}',
      'tool_result: ✓ Edit (30 chars): Edited src/cart.ts: 1 replacement.',
    ]);
    expect(detail.diff).toMatchObject({ repo, base, commit, cut: false });
    expect(detail.diff.stat).toContain('src/cart.ts | 2 +-');
    expect(detail.diff.text).toContain('-export const total = 1;\n+export const total = 2;');
    expect(detail.evidence).toEqual([
      expect.objectContaining({ kind: 'check', command: 'npm test', exit_code: 0, log_tail: '> npm test\n12 passing\n' }),
      expect.objectContaining({ kind: 'gate', name: 'claims', ok: true }),
    ]);

    // What is not there is said, with why: a pending task has neither transcript nor commit.
    const pending = JSON.parse((await httpRequest(`${url}api/runs/r-detail/tasks/t2`)).body);
    expect(pending.transcript).toEqual({ missing: 'the task has not started: it has no transcript yet' });
    expect(pending.diff).toEqual({ missing: 'the task has no commit yet' });
  });

  it('says where a transcript is when it is on another host', async () => {
    const { redis, keys } = testRedis();
    const run = new RunEvents(redis, keys, 'r-far');
    await run.created();
    await run.task('t1');
    await run.starts('t1');
    await run.finishes('t1', 'c'.repeat(40), '/nonexistent/sessions/t1/transcript.jsonl');
    const url = await serve(keys);
    const detail = JSON.parse((await httpRequest(`${url}api/runs/r-far/tasks/t1`)).body);
    expect(detail.transcript).toEqual({
      path: '/nonexistent/sessions/t1/transcript.jsonl',
      missing: '/nonexistent/sessions/t1/transcript.jsonl is not on this host (the task ran on host-1), or was removed by orca clean',
    });
    expect(detail.diff.missing).toMatch(/^git diff aaaaaaaaaaaa\.\.cccccccccccc failed in \/tmp\/repo: /);
  });

  it('streams the board over SSE: at once, then again when the run’s stream grows', async () => {
    const { redis, keys } = testRedis();
    const run = new RunEvents(redis, keys, 'r-sse');
    await run.created();
    await run.task('t1');
    const url = await serve(keys);

    const boards: Array<{ tasks: Array<{ status: string }> }> = [];
    const req = request(`${url}api/runs/r-sse/events`, { headers: { accept: 'text/event-stream' } });
    const arrived = new Promise<void>((resolve, reject) => {
      req.on('response', (res) => {
        expect(res.headers['content-type']).toBe('text/event-stream');
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const message = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            if (!message.startsWith('event: board\n')) continue;
            boards.push(JSON.parse(message.slice('event: board\ndata: '.length)));
            if (boards.length === 1) void run.state('t1', 'queued');
            if (boards.at(-1)!.tasks[0]!.status === 'queued') resolve();
          }
        });
        res.on('error', reject);
      });
      req.on('error', reject);
    });
    req.end();
    await arrived;
    req.destroy();
    expect(boards[0]!.tasks[0]!.status).toBe('pending');
    expect(boards.at(-1)!.tasks[0]!.status).toBe('queued');
  });

  it('bound to loopback without a token: answers only to loopback names, and takes a POST only from its own page', async () => {
    const { redis, keys } = testRedis();
    const run = new RunEvents(redis, keys, 'r-guard');
    await run.created();
    const url = await serve(keys);
    const abort = `${url}api/runs/r-guard/abort`;

    // A page whose own name resolves to 127.0.0.1 (DNS rebinding) is not the board's page.
    expect((await httpRequest(`${url}api/runs`, { headers: { host: 'attacker.example' } })).status).toBe(403);
    expect((await httpRequest(`${url}api/runs`, { headers: { host: `localhost:${new URL(url).port}` } })).status).toBe(200);

    expect((await httpRequest(abort, { method: 'POST', headers: { origin: 'http://attacker.example' } })).status).toBe(403);
    expect((await httpRequest(abort, { method: 'POST', headers: { 'sec-fetch-site': 'cross-site' } })).status).toBe(403);
    expect((await httpRequest(abort, { method: 'POST', headers: { origin: 'null' } })).status).toBe(403);
    expect(await isAborted(redis, keys, 'r-guard')).toBe(false);

    const own = await httpRequest(abort, { method: 'POST', headers: { origin: url.slice(0, -1), 'sec-fetch-site': 'same-origin' } });
    expect(own).toMatchObject({ status: 202, body: '{"run_id":"r-guard","abort":"published"}' });
    expect(await isAborted(redis, keys, 'r-guard')).toBe(true);
    expect((await httpRequest(`${url}api/runs/r-other/abort`, { method: 'POST' })).status).toBe(404);
  });

  it('takes an answer to a pending permission request only from its own page, in the shape it documents', async () => {
    const { redis, keys } = testRedis();
    const run = new RunEvents(redis, keys, 'r-answer');
    await run.created();
    await run.task('t1');
    await run.state('t1', 'queued');
    await run.starts('t1');
    await run.agent('t1', {
      type: 'permission_request',
      id: 'cafe0001',
      role: 'worker',
      tool: 'Bash',
      input: { command: 'npm publish' },
      summary: 'npm publish',
      reason: 'the rule Bash(npm publish:*) in .claude/settings.json asks before `npm publish`',
      by: 'ask:Bash(npm publish:*) in .claude/settings.json',
      cwd: '/tmp/wt/t1',
      suggestion: ['Bash(npm publish:*)'],
      expires_at: Date.now() + 600_000,
    });
    const url = await serve(keys);
    const answer = `${url}api/runs/r-answer/asks/cafe0001/answer`;
    const own = { origin: url.slice(0, -1), 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' };
    const post = (target: string, body: unknown, headers: Record<string, string> = own) =>
      httpRequest(target, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });

    expect((await post(answer, { allowed: true }, { origin: 'http://attacker.example' })).status).toBe(403);
    expect((await post(answer, { allowed: true }, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    const vague = await post(answer, { allowed: 'yes' });
    expect(vague.status).toBe(400);
    expect(JSON.parse(vague.body).error).toMatch(/allowed/);
    expect((await post(answer, 'not json')).status).toBe(400);
    expect((await post(`${url}api/runs/r-answer/asks/NOT-AN-ID/answer`, { allowed: true })).status).toBe(400);
    expect((await readRunBoard(redis, keys, 'r-answer'))!.asks.map((ask) => ask.id)).toEqual(['cafe0001']);

    const denied = await post(answer, { allowed: false, reason: 'not today' });
    expect(denied.status).toBe(200);
    expect(JSON.parse(denied.body)).toEqual({ run_id: 'r-answer', request_id: 'cafe0001', allowed: false, remember: [] });
    const board = (await readRunBoard(redis, keys, 'r-answer'))!;
    expect(board.asks).toEqual([]);
    expect(board.answered[0]!.answer).toMatchObject({
      allowed: false,
      via: 'board',
      by: 'web board (127.0.0.1)',
      reason: 'denied on the web board by web board (127.0.0.1): not today',
    });

    const again = await post(answer, { allowed: true });
    expect(again.status).toBe(409);
    expect(JSON.parse(again.body).error).toBe(
      'request cafe0001 of run r-answer was not answered: it was already denied by web board (127.0.0.1) (board)',
    );
    expect((await post(`${url}api/runs/r-answer/asks/cafe0002/answer`, { allowed: true })).status).toBe(409);
  });

  it('with a token, every request must carry it: as a bearer header, or the cookie a ?token= page load sets', async () => {
    const { redis, keys } = testRedis();
    await new RunEvents(redis, keys, 'r-token').created();
    const url = await serve(keys, TOKEN);

    for (const target of ['', 'api/runs', 'api/runs/r-token/events', 'queues']) {
      expect((await httpRequest(`${url}${target}`)).status, target).toBe(401);
    }
    expect((await httpRequest(`${url}api/runs`, { headers: { authorization: `Bearer ${TOKEN}x` } })).status).toBe(401);
    expect((await httpRequest(`${url}api/runs`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);

    const first = await httpRequest(`${url}?token=${TOKEN}#run=r-token`, { headers: { accept: 'text/html' } });
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe('/');
    const cookie = (first.headers['set-cookie'] as string[])[0]!;
    expect(cookie).toMatch(/^orca_board_token=a-board-token-long-enough; Path=\/; HttpOnly; SameSite=Strict$/);
    const withCookie = await httpRequest(url, { headers: { cookie: cookie.split(';')[0]! } });
    expect(withCookie.status).toBe(200);
    // With a token the Host header is no longer the guard: the board can be reached by any name.
    expect((await httpRequest(`${url}api/runs`, { headers: { cookie: cookie.split(';')[0]!, host: 'board.example:80' } })).status).toBe(
      200,
    );
  });

  it('mounts bull-board under /queues, read-only, showing the agent queue', async () => {
    const { keys } = testRedis();
    const url = await serve(keys);
    const page = await httpRequest(`${url}queues`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('orca queue');
    const api = JSON.parse((await httpRequest(`${url}queues/api/queues`)).body) as {
      queues: Array<{ name: string; readOnlyMode: boolean }>;
    };
    expect(api.queues.map((queue) => [queue.name, queue.readOnlyMode])).toEqual([['agents', true]]);
    // Read-only: a retry through bull-board's API is refused (and cross-origin ones never get that far).
    const retry = await httpRequest(`${url}queues/api/queues/agents/retry/failed`, { method: 'PUT' });
    expect(retry.status).toBeGreaterThanOrEqual(400);
  });

  it('orca serve will not listen beyond loopback without a token, nor with a short one', async () => {
    const env = await OrcaTestEnv.open();
    const open = await env.cli(['serve', '--host', '0.0.0.0', '--port', '0']);
    expect(open.code).toBe(2);
    expect(open.stderr).toBe(
      'orca: --host 0.0.0.0 would show the board (and its abort button) to other machines: pass --token T or set ORCA_BOARD_TOKEN, or leave --host at 127.0.0.1.\n',
    );
    const short = await env.cli(['serve', '--host', '0.0.0.0', '--port', '0', '--token', 'short']);
    expect([short.code, short.stderr]).toEqual([
      2,
      'orca: the board token is too short to guess-proof a server: use 16 characters or more.\n',
    ]);
  });
});
