import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentSession } from '../../shared/core/loop/session.js';
import { AnthropicModel } from '../../shared/core/model/anthropic.js';
import { makeBashTool } from '../../shared/tools/bash.js';
import { OrcaAcpClient } from '../../workers/agents/acpClient.js';
import { TurnCalls } from '../../workers/agents/turnCalls.js';
import { processesMatching, waitForCommands } from '../support/processTable.js';
import { tempDir } from '../support/tempDir.js';

/**
 * ACP terminals run through orca's Bash; `terminal/kill` and `terminal/release` stop a command
 * still running, with every process it started, and the terminal says it was killed.
 */

function client(calls = new TurnCalls()): { client: OrcaAcpClient; workspace: string } {
  const workspace = tempDir('orca-acp-terminal-');
  writeFileSync(path.join(workspace, 'spin.mjs'), "console.log('started'); setInterval(() => {}, 1000);\n");
  const session = new AgentSession({
    role: 'worker',
    // Never called: the terminals are the client's, not the model's.
    model: new AnthropicModel({ keyAtFirstCall: true }),
    systemPrompt: 'test',
    tools: [makeBashTool()],
    outputSchema: z.object({}),
    workspaceRoot: workspace,
    sessionDir: path.join(tempDir('orca-acp-terminal-session-'), 'session'),
    mode: 'full-access',
  });
  return { client: new OrcaAcpClient(session, { record: () => undefined, turn: () => 1 }, calls), workspace };
}

describe('an ACP terminal', () => {
  it('is stopped by terminal/kill, its processes gone, and stays readable', async () => {
    const { client: acp } = client();
    const marker = `acp-kill-${process.pid}-${Date.now()}`;
    const { terminalId } = await acp.createTerminal({ sessionId: 's', command: 'node', args: ['spin.mjs', marker] });
    await waitForCommands([`node spin.mjs ${marker}`]);
    await acp.killTerminal({ sessionId: 's', terminalId });
    expect(processesMatching(marker)).toEqual([]);
    expect(await acp.waitForTerminalExit({ sessionId: 's', terminalId })).toEqual({ exitCode: null, signal: 'SIGTERM' });
    const output = await acp.terminalOutput({ sessionId: 's', terminalId });
    expect(output.exitStatus).toEqual({ exitCode: null, signal: 'SIGTERM' });
    expect(output.output).toContain('Command was aborted (the agent killed its terminal: terminal/kill)');
    expect(output.output).toContain('started');
  });

  it('is stopped by terminal/release while it runs, and then is gone', async () => {
    const { client: acp } = client();
    const marker = `acp-release-${process.pid}-${Date.now()}`;
    const { terminalId } = await acp.createTerminal({ sessionId: 's', command: 'node', args: ['spin.mjs', marker] });
    await waitForCommands([`node spin.mjs ${marker}`]);
    await acp.releaseTerminal({ sessionId: 's', terminalId });
    expect(processesMatching(marker)).toEqual([]);
    await expect(acp.terminalOutput({ sessionId: 's', terminalId })).rejects.toThrow(`no terminal ${terminalId}`);
  });

  it('left alone, runs to its end and says its exit code', async () => {
    const { client: acp } = client();
    const { terminalId } = await acp.createTerminal({ sessionId: 's', command: 'node', args: ['-e', 'process.exit(3)'] });
    expect(await acp.waitForTerminalExit({ sessionId: 's', terminalId })).toEqual({ exitCode: 3, signal: null });
    await acp.killTerminal({ sessionId: 's', terminalId });
    expect((await acp.terminalOutput({ sessionId: 's', terminalId })).exitStatus).toEqual({ exitCode: 3, signal: null });
  });

  it('is stopped when the agent’s turn ends, with its processes, and none starts after until the next prompt', async () => {
    const calls = new TurnCalls();
    const { client: acp, workspace } = client(calls);
    const marker = `acp-turn-${process.pid}-${Date.now()}`;
    const { terminalId } = await acp.createTerminal({ sessionId: 's', command: 'node', args: ['spin.mjs', marker] });
    // A command that would write after the turn's end, were it left running.
    await acp.createTerminal({
      sessionId: 's',
      command: 'node',
      args: ['-e', "setTimeout(() => require('node:fs').writeFileSync('late.txt', 'x'), 1500)"],
    });
    await waitForCommands([`node spin.mjs ${marker}`]);
    await calls.end('the agent’s turn has ended');
    // Both stopped, and waited for: nothing of the turn is left to write.
    expect(processesMatching(marker)).toEqual([]);
    expect(await acp.waitForTerminalExit({ sessionId: 's', terminalId })).toEqual({ exitCode: null, signal: 'SIGTERM' });
    expect((await acp.terminalOutput({ sessionId: 's', terminalId })).output).toContain('Command was aborted (the agent’s turn has ended)');
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(existsSync(path.join(workspace, 'late.txt'))).toBe(false);
    // After the turn, a call is refused before anything runs.
    await expect(acp.createTerminal({ sessionId: 's', command: 'touch', args: ['after.txt'] })).rejects.toThrow(
      'orca ran no call: the agent’s turn has ended',
    );
    await expect(acp.writeTextFile({ sessionId: 's', path: path.join(workspace, 'after.txt'), content: 'x' })).rejects.toThrow(
      'orca ran no call',
    );
    expect(existsSync(path.join(workspace, 'after.txt'))).toBe(false);
    // The next prompt opens the next turn.
    calls.open();
    const next = await acp.createTerminal({ sessionId: 's', command: 'node', args: ['-e', 'process.exit(0)'] });
    expect(await acp.waitForTerminalExit({ sessionId: 's', terminalId: next.terminalId })).toEqual({ exitCode: 0, signal: null });
  });
});
