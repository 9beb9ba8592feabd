import { describe, expect, it } from 'vitest';
import { AcpAgentSchema } from '../../shared/core/agents/agentBackend.js';
import { claudeCode } from '../../shared/core/agents/claudeCodePreset.js';
import { codex } from '../../shared/core/agents/codexPreset.js';
import { agentEgress } from '../../workers/agents/agentEgress.js';

/** The proxy rules an external agent's network gets: its model API's host:port and orca's MCP port, nothing more. */

const MCP = 'http://127.0.0.1:41000/mcp';

describe('an external agent’s egress rules', () => {
  it('name its base URL’s host and port, the scheme’s port when it names none, and the MCP port', () => {
    expect(agentEgress(claudeCode, { ANTHROPIC_BASE_URL: 'http://127.0.0.1:8080' }, MCP)).toEqual(['127.0.0.1:8080', '127.0.0.1:41000']);
    expect(agentEgress(claudeCode, { ANTHROPIC_BASE_URL: 'https://gateway.example.com/anthropic' }, MCP)).toEqual([
      'gateway.example.com:443',
      '127.0.0.1:41000',
    ]);
    expect(agentEgress(codex, { OPENAI_BASE_URL: 'http://[::1]:9000/v1' }, MCP)).toEqual(['[::1]:9000', '127.0.0.1:41000']);
  });

  it('name its preset’s API hosts on 443 when its base URL is unset', () => {
    expect(agentEgress(claudeCode, {}, MCP)).toEqual(['api.anthropic.com:443', 'platform.claude.com:443', '127.0.0.1:41000']);
    expect(agentEgress(codex, {}, MCP)).toEqual(['api.openai.com:443', 'chatgpt.com:443', 'auth.openai.com:443', '127.0.0.1:41000']);
  });

  it('refuse a base URL that is not http(s), and an agent that names no model API at all', () => {
    expect(() => agentEgress(claudeCode, { ANTHROPIC_BASE_URL: 'localhost:8080' }, MCP)).toThrow(
      /claude-code's ANTHROPIC_BASE_URL is not an http\(s\) URL/,
    );
    expect(() => agentEgress(claudeCode, { ANTHROPIC_BASE_URL: 'not a url' }, MCP)).toThrow(/is not a URL/);
    const bare = AcpAgentSchema.parse({ kind: 'acp', name: 'mine', command: ['mine'] });
    expect(() => agentEgress(bare, {}, MCP)).toThrow(
      'the mine agent names no model API to reach: set its base URL variable or give it apiHosts in orca.json (docs/agents.md)',
    );
  });
});
