import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runHooks } from '../../shared/policy/hooks/hookRunner.js';
import { hookEvents, hooksOf, testHookContext } from './hookTestKit.js';

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let server: Server;
let base: string;
let received: Received[];
let respond: (res: ServerResponse) => void;

beforeEach(async () => {
  received = [];
  respond = (res) => res.end();
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      respond(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const preToolUse = { tool_name: 'Bash', tool_input: { command: 'npm publish' }, tool_use_id: 'toolu_9' };

describe('http hooks', () => {
  it('POST the same JSON a command hook reads, with the configured headers; only allowed variables are expanded', async () => {
    const context = testHookContext({ env: { HOOK_TOKEN: 'secret-1', OTHER_SECRET: 'do-not-send' } });
    const hooks = hooksOf({
      PreToolUse: [
        {
          matcher: 'Bash',
          hooks: [
            {
              type: 'http',
              url: `${base}/hooks/pre`,
              headers: { Authorization: 'Bearer $HOOK_TOKEN', 'X-Other': '[${OTHER_SECRET}]', 'X-Plain': 'orca' },
              allowedEnvVars: ['HOOK_TOKEN'],
            },
          ],
        },
      ],
    });
    const outcome = await runHooks(hooks, 'PreToolUse', preToolUse, context);

    expect(outcome.blocked).toBe(false);
    expect(received).toHaveLength(1);
    const [request] = received;
    expect(request).toMatchObject({ method: 'POST', url: '/hooks/pre' });
    expect(request!.headers).toMatchObject({
      'content-type': 'application/json',
      authorization: 'Bearer secret-1',
      'x-other': '[]',
      'x-plain': 'orca',
    });
    expect(JSON.parse(request!.body)).toMatchObject({
      session_id: 'session-1',
      cwd: context.projectDir,
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'npm publish' },
      tool_use_id: 'toolu_9',
    });
    expect(hookEvents(context.events)).toEqual([
      { type: 'hook', event: 'PreToolUse', command: `${base}/hooks/pre`, outcome: 'ok', exit_code: null },
    ]);
  });

  it('a 2xx JSON answer is read like stdout: a deny blocks', async () => {
    respond = (res) => {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          hookSpecificOutput: {
            hookEventName: 'PreToolUse',
            permissionDecision: 'deny',
            permissionDecisionReason: 'publishing needs a release manager',
          },
        }),
      );
    };
    const outcome = await runHooks(
      hooksOf({ PreToolUse: [{ hooks: [{ type: 'http', url: base }] }] }),
      'PreToolUse',
      preToolUse,
      testHookContext(),
    );
    expect(outcome).toMatchObject({ blocked: true, decision: 'deny', reason: 'publishing needs a release manager' });
  });

  it('a 2xx plain-text answer to UserPromptSubmit is context, as plain stdout is', async () => {
    respond = (res) => res.end('ticket ORCA-12 is in progress');
    const outcome = await runHooks(
      hooksOf({ UserPromptSubmit: [{ hooks: [{ type: 'http', url: base }] }] }),
      'UserPromptSubmit',
      { prompt: 'go' },
      testHookContext(),
    );
    expect(outcome.additionalContext).toEqual(['ticket ORCA-12 is in progress']);
  });

  it('a non-2xx status is a non-blocking error, even with a deny in the body', async () => {
    respond = (res) => {
      res.statusCode = 503;
      res.end(JSON.stringify({ hookSpecificOutput: { permissionDecision: 'deny' } }));
    };
    const context = testHookContext();
    const outcome = await runHooks(hooksOf({ PreToolUse: [{ hooks: [{ type: 'http', url: base }] }] }), 'PreToolUse', preToolUse, context);
    expect(outcome.blocked).toBe(false);
    expect(hookEvents(context.events)).toMatchObject([{ outcome: 'error', exit_code: null }]);
    expect(hookEvents(context.events)[0]!.detail).toBe(
      `POST ${base} answered 503 Service Unavailable: {"hookSpecificOutput":{"permissionDecision":"deny"}}`,
    );
  });

  it('a server that does not answer in time is a timeout, a non-blocking error', async () => {
    respond = () => {}; // never answers
    const context = testHookContext();
    const outcome = await runHooks(
      hooksOf({ Stop: [{ hooks: [{ type: 'http', url: base, timeout: 1 }] }] }),
      'Stop',
      { stop_hook_active: false },
      context,
    );
    expect(outcome.blocked).toBe(false);
    expect(hookEvents(context.events)).toMatchObject([{ outcome: 'timeout', exit_code: null }]);
  });

  it('with onFailure "block", an unreachable PreToolUse endpoint blocks the call', async () => {
    const url = base;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const context = testHookContext();
    const open = await runHooks(hooksOf({ PreToolUse: [{ hooks: [{ type: 'http', url }] }] }), 'PreToolUse', preToolUse, context);
    const closed = await runHooks(
      hooksOf({ PreToolUse: [{ hooks: [{ type: 'http', url, onFailure: 'block' }] }] }),
      'PreToolUse',
      preToolUse,
      testHookContext(),
    );
    expect(open.blocked).toBe(false);
    expect(hookEvents(context.events)[0]!.detail).toMatch(/ECONNREFUSED/);
    expect(closed.blocked).toBe(true);
  });
});
