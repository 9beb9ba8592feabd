import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCode } from '../../shared/core/agents/claudeCodePreset.js';
import { packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { envLoginMethod } from '../../workers/agents/agentLogin.js';
import { AgentStart } from '../../workers/agents/agentStart.js';
import { tempDir } from '../support/tempDir.js';

/**
 * An agent that refuses `session/new` until it is logged in (ACP's `auth_required`, as Codex does
 * with an API key but no login file): orca asks it to log in with the `env_var` method whose
 * variables it was given, then opens the session; given none of them, the start fails in one line
 * naming what to set.
 */

/** It offers a browser login and one from FAKE_AGENT_KEY; it writes which it was asked for, and whether it saw the key. */
const AGENT = (sdk: string) => `
import * as acp from ${JSON.stringify(sdk)};
import { writeFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
const stream = acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
let loggedIn = false;
new acp.AgentSideConnection(() => ({
  initialize: async () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: {},
    authMethods: [
      { id: 'browser', name: 'Log in with a browser' },
      { type: 'env_var', id: 'key-login', name: 'Use FAKE_AGENT_KEY', vars: [{ name: 'FAKE_AGENT_KEY' }, { name: 'FAKE_AGENT_ORG', optional: true }] },
    ],
  }),
  authenticate: async ({ methodId }) => {
    writeFileSync('login.txt', methodId + ' ' + (process.env.FAKE_AGENT_KEY ? 'with key' : 'without key'));
    loggedIn = methodId === 'key-login' && Boolean(process.env.FAKE_AGENT_KEY);
    return {};
  },
  newSession: async () => {
    if (!loggedIn) throw acp.RequestError.authRequired();
    return { sessionId: 's1' };
  },
  prompt: async () => ({ stopReason: 'end_turn' }),
  cancel: async () => {},
}), stream);
`;

function started(env: Record<string, string>): { start: AgentStart; worktree: string } {
  const worktree = tempDir('orca-agentlogin-wt-');
  const script = path.join(worktree, 'agent.mjs');
  writeFileSync(script, AGENT(path.join(packageRoot(), 'node_modules', '@agentclientprotocol', 'sdk', 'dist', 'acp.js')));
  const start = new AgentStart({
    agent: {
      ...claudeCode,
      name: 'fake',
      native: undefined,
      env: ['ANTHROPIC_BASE_URL', 'FAKE_AGENT_KEY'],
      command: [process.execPath, script],
    },
    worktree,
    sessionDir: tempDir('orca-agentlogin-session-'),
    readable: [],
    sandboxed: true,
    jobEnv: {},
    env: { ...process.env, ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', ...env },
    userHome: tempDir('orca-agentlogin-home-'),
  });
  return { start, worktree };
}

describe('an agent that asks to log in before its session', () => {
  it('is logged in from the variable it was given, then its session opens', async () => {
    const { start, worktree } = started({ FAKE_AGENT_KEY: 'fake-secret-key' });
    try {
      await expect(start.openSession({ cwd: worktree, mcpServers: [] })).resolves.toBe('s1');
      expect(readFileSync(path.join(worktree, 'login.txt'), 'utf8')).toBe('key-login with key');
    } finally {
      await start.close();
    }
  });

  it('given none of its variables, fails in one line naming what to set, and asks it for no login', async () => {
    const { start, worktree } = started({});
    try {
      await expect(start.openSession({ cwd: worktree, mcpServers: [] })).rejects.toThrow(
        "the fake agent asks to log in, and orca can give it no login it does itself: set FAKE_AGENT_KEY in the worker's environment, or log in with it once on this host so its login file is copied in (docs/agents.md)",
      );
      expect(existsSync(path.join(worktree, 'login.txt'))).toBe(false);
    } finally {
      await start.close();
    }
  });

  it('takes the first login whose variables are all set, optional ones aside; names every required one when none is', () => {
    const methods = [
      { id: 'browser', name: 'browser' },
      { type: 'env_var' as const, id: 'codex-api-key', name: 'codex', vars: [{ name: 'CODEX_API_KEY' }] },
      {
        type: 'env_var' as const,
        id: 'openai-api-key',
        name: 'openai',
        vars: [{ name: 'OPENAI_API_KEY' }, { name: 'OPENAI_ORG', optional: true }],
      },
    ];
    expect(envLoginMethod('codex', methods, (name) => name === 'OPENAI_API_KEY')).toBe('openai-api-key');
    expect(envLoginMethod('codex', methods, () => true)).toBe('codex-api-key');
    expect(() => envLoginMethod('codex', methods, () => false)).toThrow('set CODEX_API_KEY or OPENAI_API_KEY in the worker');
    expect(() => envLoginMethod('codex', [methods[0]!], () => true)).toThrow('it offers none that reads its environment');
  });
});
