import { readdirSync, readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { serve } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { type Context, Hono } from 'hono';
import { isSlug } from '../../../shared/core/git/slug.js';
import { listRuns, readRunBoard } from '../../../shared/infra/board/readBoard.js';
import { AgentQueue } from '../../../shared/infra/queue/agentQueue.js';
import { publishAbort } from '../../../shared/infra/queue/runAbort.js';
import type { BoardSource } from '../boardSource.js';
import { withResultState } from '../runResultState.js';
import { answerFromBoard } from './askAnswer.js';
import { mountQueueView } from './queueView.js';
import { requestGuard } from './requestGuard.js';
import { RunEventStreams } from './runEventsSse.js';
import { readTaskDetail } from './taskDetail.js';

export interface BoardServerOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Required of every request when set. */
  token?: string;
}

export interface BoardServer {
  url: string;
  close(): Promise<void>;
}

const ASSETS = new URL('./assets/', import.meta.url);
const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
};

/** The page loads nothing from elsewhere and cannot be framed (the abort button must not be clickjacked). */
const PAGE_HEADERS = {
  'Content-Security-Policy': "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

/**
 * The web board: the page (files in ./assets), a JSON API with the same data as `orca status
 * --json`, live updates over SSE, the abort button's POST and the answers to permission requests,
 * and bull-board under /queues.
 */
export function boardApp(source: BoardSource, queue: AgentQueue, streams: RunEventStreams, token: string | undefined): Hono {
  const app = new Hono();
  app.use('*', requestGuard(token));
  app.use('*', async (c, next) => {
    await next();
    c.header('X-Frame-Options', 'DENY');
  });

  // The page's files, read once: `/` is page.html, the rest are under /assets/ by name.
  for (const file of readdirSync(ASSETS)) {
    const type = CONTENT_TYPES[path.extname(file)];
    if (!type) continue;
    const body = readFileSync(new URL(file, ASSETS), 'utf8');
    app.get(file === 'page.html' ? '/' : `/assets/${file}`, (c) => c.body(body, 200, { 'Content-Type': type, ...PAGE_HEADERS }));
  }

  app.get('/favicon.ico', (c) => c.body(null, 204));
  app.get('/api/runs', async (c) => c.json({ runs: await listRuns(source.redis, source.keys) }));
  app.get('/api/runs/:run', async (c) => {
    const board = await readRunBoard(source.redis, source.keys, runParam(c));
    return board ? c.json(await withResultState(board)) : notFound(c, `run ${c.req.param('run')} is not recorded`);
  });
  app.get('/api/runs/:run/tasks/:task', async (c) => {
    const board = await readRunBoard(source.redis, source.keys, runParam(c));
    if (!board) return notFound(c, `run ${c.req.param('run')} is not recorded`);
    const task = board.tasks.find((candidate) => candidate.task_id === c.req.param('task'));
    if (!task) return notFound(c, `run ${board.run.run_id} has no task ${c.req.param('task')}`);
    return c.json(await readTaskDetail(board, task, queue));
  });
  app.get('/api/runs/:run/events', async (c) => {
    const runId = runParam(c);
    if (!(await source.redis.exists(source.keys.run(runId)))) return notFound(c, `run ${runId} is not recorded`);
    return streams.respond(c, runId);
  });
  app.post('/api/runs/:run/abort', async (c) => {
    const runId = runParam(c);
    if (!(await source.redis.exists(source.keys.run(runId)))) return notFound(c, `run ${runId} is not recorded`);
    await publishAbort(source.redis, source.keys, runId, 'aborted from the web board');
    return c.json({ run_id: runId, abort: 'published' }, 202);
  });

  app.post('/api/runs/:run/asks/:request/answer', async (c) => {
    const runId = runParam(c);
    const requestId = c.req.param('request') ?? '';
    if (!/^[0-9a-f]{1,32}$/.test(requestId)) throw new BadRequest(`"${requestId}" is not a request id`);
    const body = await c.req.json().catch(() => {
      throw new BadRequest('the answer must be a JSON object: { "allowed": true | false, "reason"?: "…", "for_run"?: true }');
    });
    const address = getConnInfo(c).remote.address;
    const reply = await answerFromBoard(source, runId, requestId, body, `web board${address ? ` (${address})` : ''}`);
    return c.json(reply.body, reply.status);
  });

  mountQueueView(app, queue);

  app.onError((error, c) => {
    if (error instanceof BadRequest) return c.json({ error: error.message }, 400);
    process.stderr.write(`orca serve: ${c.req.method} ${c.req.path} failed: ${error.stack ?? error.message}\n`);
    return c.json({ error: error.message }, 500);
  });
  return app;
}

/** Starts the web board and resolves once it listens; `close` stops its streams and the server. */
export async function startBoardServer(source: BoardSource, options: BoardServerOptions): Promise<BoardServer> {
  const queue = new AgentQueue(source.redis, source.keys);
  const streams = new RunEventStreams(source);
  const app = boardApp(source, queue, streams, options.token);
  let server!: Server;
  const address = await new Promise<AddressInfo>((resolve, reject) => {
    server = serve({ fetch: app.fetch, hostname: options.host, port: options.port }, resolve) as Server;
    server.once('error', reject);
  });
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/`,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Open SSE responses would hold close() forever: end them, then drop what is left.
      await streams.close();
      server.closeAllConnections();
      await closed;
      await queue.close();
    },
  };
}

class BadRequest extends Error {}

function runParam(c: Context): string {
  const run = c.req.param('run') ?? '';
  if (!isSlug(run)) throw new BadRequest(`"${run}" is not a run id`);
  return run;
}

function notFound(c: Context, message: string): Response {
  return c.json({ error: message }, 404);
}
