import { describe, expect, it } from 'vitest';
import { agentForRole, agentNamed, choiceByRole, parseAgentOption } from '../../shared/core/agents/agentChoice.js';
import { OrcaProjectConfigSchema } from '../../shared/core/git/orcaProjectConfig.js';

describe('which agent runs a role', () => {
  it('reads --agent as the Workers’ agent, or agents by role and by subtask', () => {
    expect(parseAgentOption('claude-code')).toEqual({ ok: true, byRole: { worker: 'claude-code' } });
    expect(parseAgentOption('claude-code', 'explore')).toEqual({ ok: true, byRole: { explore: 'claude-code' } });
    expect(parseAgentOption('Worker=claude-code, verification=orca,worker/cart=codex')).toEqual({
      ok: true,
      byRole: { worker: 'claude-code', verification: 'orca', 'worker/cart': 'codex' },
    });
    expect(parseAgentOption('worker=a=b')).toMatchObject({ ok: false, problem: expect.stringContaining('write NAME or ROLE=NAME') });
    expect(parseAgentOption(' , ')).toMatchObject({ ok: false, problem: '--agent needs an agent name: orca, or one of docs/agents.md' });
  });

  it('takes --agent over a role file over orca.json, a subtask’s own over its role’s, and orca when nothing names one', () => {
    const project = OrcaProjectConfigSchema.parse({
      agent: { worker: 'codex', 'worker/cart': 'mine' },
      agents: { mine: { command: ['mine', '--acp'], env: ['MINE_KEY'] } },
    });
    const sources = { option: {}, project: choiceByRole(project.agent), defined: project.agents };
    expect(agentForRole('worker', sources)).toMatchObject({ kind: 'acp', name: 'codex', command: ['codex-acp'] });
    expect(agentForRole('worker', sources, 'cart')).toMatchObject({
      kind: 'acp',
      name: 'mine',
      command: ['mine', '--acp'],
      env: ['MINE_KEY'],
    });
    expect(agentForRole('worker', { ...sources, roleFile: 'gemini' })).toMatchObject({ name: 'gemini', command: ['gemini', '--acp'] });
    expect(agentForRole('worker', { ...sources, option: { worker: 'claude-code' }, roleFile: 'gemini' })).toMatchObject({
      name: 'claude-code',
      replaces: expect.arrayContaining(['Write', 'Bash']),
    });
    expect(agentForRole('verification', sources)).toEqual({ kind: 'orca' });
    expect(agentForRole('worker', { option: { worker: 'orca' }, project: {} })).toEqual({ kind: 'orca' });
  });

  it('names the agents there are when a name is unknown, and refuses a bad orca.json agent', () => {
    expect(agentNamed('claud')).toEqual({
      problem:
        'no agent named "claud": use one of orca, claude-code, codex, gemini, opencode, or name its ACP command in orca.json\'s "agents" (docs/agents.md)',
    });
    expect(OrcaProjectConfigSchema.safeParse({ agents: { mine: { command: [] } } }).success).toBe(false);
    expect(OrcaProjectConfigSchema.safeParse({ agents: { mine: { command: ['x'], shell: true } } }).success).toBe(false);
  });
});
