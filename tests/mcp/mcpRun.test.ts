import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRunEvents } from '../../shared/infra/board/runEvents.js';
import { makeRepo, writeFiles } from '../support/gitRepo.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { processesMatching } from '../support/processTable.js';
import { toolOutcomes } from '../support/scriptedJobs.js';
import { EVERYTHING_SERVER } from './mcpSupport.js';

const REPORT = (input: Record<string, unknown>) => ({ tools: [{ name: 'Report', input }] });

/** A whole run whose Worker adds two numbers with the everything server's get-sum. */
const SCRIPT = {
  agents: [
    { when: { role: 'coordinator' }, turns: [REPORT({ questions: [] })] },
    {
      when: { role: 'plan' },
      turns: [
        REPORT({
          subtasks: [{ id: 'sum', title: 'add', instructions: 'Add 1 and 2.', paths: ['src/**'], depends_on: [] }],
          risks: [],
        }),
      ],
    },
    {
      when: { role: 'worker', task: 'sum' },
      turns: [
        { tools: [{ name: 'mcp__everything__get-sum', input: { a: 1, b: 2 } }] },
        REPORT({ summary: 'added', unresolved: ['nothing to change'], claimed_checks: [] }),
      ],
    },
    { when: { role: 'verification' }, turns: [REPORT({ verdict: 'FAIL', checks: [], problems: [], confirmations: [] })] },
  ],
};

interface Entry {
  source: string;
  event: Record<string, unknown> & { type: string };
}

describe('orca run --mcp', () => {
  it('gives the run’s built-in roles the named servers, and records them in the run’s settings, which resume reads', {
    timeout: SLOW_TEST_MS,
  }, async () => {
    const env = await OrcaTestEnv.open();
    const repo = makeRepo({ 'src/a.ts': 'export const a = 1;\n' });
    writeFiles(path.join(env.root, 'user-home'), {
      '.claude.json': JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'] } } }),
    });
    const script = path.join(env.root, 'script.json');
    writeFileSync(script, JSON.stringify(SCRIPT));
    const run = await env.cli(
      ['run', 'Add 1 and 2.', '--repo', repo, '--script', script, '--check', 'true', '--workers', '1', '--mcp', 'everything'],
      {
        deadlineMs: 240_000,
      },
    );
    const runId = /^orca: run (\S+)/.exec(run.stderr)![1]!;
    const entries = (await readRunEvents(env.redis, env.keys, runId, '0', 10_000)).map(({ entry }) => entry as Entry);
    expect(entries.find((entry) => entry.event.type === 'run_created')!.event.settings).toMatchObject({ mcp: ['everything'] });
    const result = entries.find((entry) => entry.event.type === 'task_result' && entry.event.task_id === 'sum')?.event;
    expect(result, run.stderr).toBeDefined();
    const worker = readFileSync(String(result!.transcript), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(worker.filter((line) => line.type === 'tool_result').map((line) => [line.name, line.is_error, line.preview])).toEqual([
      ['mcp__everything__get-sum', false, 'The sum of 1 and 2 is 3.'],
      ['Report', false, expect.any(String)],
    ]);
    expect(processesMatching(`${EVERYTHING_SERVER} stdio`)).toEqual([]);
  });
});

describe('approved project MCP servers', () => {
  it('reach a Worker with no --mcp, as in Claude Code; --mcp none turns them off', { timeout: SLOW_TEST_MS }, async () => {
    const env = await OrcaTestEnv.open();
    // The project's .mcp.json, committed; the user's approval in the untracked settings.local.json.
    const repo = makeRepo({
      '.gitignore': '.claude/settings.local.json\n',
      '.mcp.json': JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'] } } }),
    });
    writeFiles(repo, { '.claude/settings.local.json': JSON.stringify({ enableAllProjectMcpServers: true }) });
    const script = path.join(env.root, 'echo.json');
    writeFileSync(
      script,
      JSON.stringify({
        agents: [
          {
            when: { role: 'worker' },
            turns: [
              { tools: [{ name: 'mcp__everything__echo', input: { message: 'from the project' } }] },
              REPORT({ summary: 'echoed', unresolved: [], claimed_checks: [] }),
            ],
          },
        ],
      }),
    );
    const echo = async (...flags: string[]) => {
      const run = await env.cli(['agent', '--role', 'worker', 'Echo.', '--repo', repo, '--script', script, '--json', ...flags]);
      expect(run.code, run.stderr).toBe(0);
      const { run_id, task_id } = JSON.parse(run.stdout) as { run_id: string; task_id: string };
      const [call] = await toolOutcomes(env.redis, env.keys, run_id, task_id);
      return call!;
    };

    expect(await echo()).toMatchObject({ isError: false, preview: 'Echo: from the project' });
    const off = await echo('--mcp', 'none');
    expect(off.isError).toBe(true);
    expect(off.preview).toContain('mcp__everything__echo');
    expect(processesMatching(`${EVERYTHING_SERVER} stdio`)).toEqual([]);
  });
});
