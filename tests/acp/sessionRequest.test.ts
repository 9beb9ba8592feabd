import type * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { claudeCode } from '../../shared/core/agents/claudeCodePreset.js';
import { opencode } from '../../shared/core/agents/opencodePreset.js';
import type { AgentSession } from '../../shared/core/loop/session.js';
import { OrcaAcpClient } from '../../workers/agents/acpClient.js';
import { isOrcaToolCall } from '../../workers/agents/orcaMcpServer.js';
import { newSessionRequest, ORCA_TOOLS_RULE } from '../../workers/agents/sessionRequest.js';
import { TurnCalls } from '../../workers/agents/turnCalls.js';

/**
 * Claude Code is told orca's MCP tools are allowed (ORCA_TOOLS_RULE), so it does not ask before
 * each call: that ask decided nothing, since orca's client allows every call of orca's tools
 * unasked and judges it when it runs (the pipeline behind the MCP call; tests/acp/claudeCodeRun
 * has a Write outside its paths refused there).
 */

const mcp = { url: 'http://127.0.0.1:9/mcp', headers: [{ name: 'Authorization', value: 'Bearer t' }], close: async () => {} };
const of = (agent: typeof claudeCode) => ({ agent, root: '/w', roleInstructions: 'Be brief.' });

/** A session that fails the test if orca's client looks at anything of it to answer. */
const untouchable = new Proxy({} as AgentSession, {
  get: (_, key) => {
    if (key === 'pending') return [];
    throw new Error(`the permission answer read session.${String(key)}`);
  },
});

function ask(client: OrcaAcpClient, toolName: string): Promise<acp.RequestPermissionResponse> {
  return client.requestPermission({
    sessionId: 's1',
    options: [
      { kind: 'allow_once', name: 'Allow', optionId: 'allow' },
      { kind: 'reject_once', name: 'Reject', optionId: 'reject' },
    ],
    toolCall: { toolCallId: 't1', _meta: { claudeCode: { toolName } }, rawInput: { file_path: '/etc/passwd' } },
  });
}

describe('the session Claude Code is opened with', () => {
  it('allows orca’s MCP server’s tools without asking, and drops the tools they replace', () => {
    const request = newSessionRequest(of(claudeCode), mcp);
    expect(request._meta).toMatchObject({
      claudeCode: { options: { allowedTools: ['mcp__orca'], disallowedTools: claudeCode.replaces } },
    });
    expect(request.mcpServers).toEqual([{ type: 'http', name: 'orca', url: mcp.url, headers: mcp.headers }]);
  });

  it('names exactly the tools orca’s client allows unasked: every orca tool, nothing else', async () => {
    // Claude Code's rule `mcp__orca` matches the tools of the server named `orca` and no other.
    expect(ORCA_TOOLS_RULE).toBe('mcp__orca');
    for (const name of ['mcp__orca__Read', 'mcp__orca__Write', 'mcp__orca__Bash', 'mcp__orca__Report']) {
      expect(isOrcaToolCall(name)).toBe(true);
      expect(await ask(new OrcaAcpClient(untouchable, { record: () => {}, turn: () => 1 }, new TurnCalls()), name)).toEqual({
        outcome: { outcome: 'selected', optionId: 'allow' },
      });
    }
    for (const name of ['mcp__orcax__Read', 'mcp__other__Read', 'Read', 'Bash']) expect(isOrcaToolCall(name)).toBe(false);
  });

  it('gives another agent no Claude Code options', () => {
    expect(newSessionRequest(of(opencode), mcp)._meta).toBeUndefined();
  });

  it('runs Claude Code without its non-essential traffic, as `claude -p` is benchmarked', () => {
    expect(claudeCode.setEnv).toMatchObject({ CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1' });
  });
});
