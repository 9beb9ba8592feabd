import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BoardSource } from '../../coordinator/board/boardSource.js';
import { startBoardServer } from '../../coordinator/board/web/boardServer.js';
import { makeRepo } from '../support/gitRepo.js';
import { OrcaTestEnv } from '../support/orcaEnv.js';
import { tempDir } from '../support/tempDir.js';
import { httpRequest } from './httpRequest.js';

/** Whole scripted runs on a shared, possibly busy machine: a safety net, not a measure of speed. */
const WHOLE_RUN_MS = 240_000;

describe('an orca agent run on the board', () => {
  it(
    'shows the agent from its own events, and its transcript and diff from its job',
    async () => {
      const env = await OrcaTestEnv.open();
      const repo = makeRepo({ 'README.md': '# agent\n' });
      const script = path.join(tempDir(), 'script.json');
      writeFileSync(
        script,
        JSON.stringify({
          latency_ms: 0,
          agents: [
            {
              when: { role: 'worker' },
              turns: [
                { text: 'Writing c.txt.', tools: [{ name: 'Write', input: { file_path: 'c.txt', content: 'from the agent\n' } }] },
                { tools: [{ name: 'Report', input: { summary: 'wrote c.txt', unresolved: [], claimed_checks: [] } }] },
              ],
            },
          ],
        }),
      );
      const agent = await env.cli([
        'agent',
        '--role',
        'worker',
        'write c.txt',
        '--repo',
        repo,
        '--script',
        script,
        '--json',
        '--workers',
        '1',
      ]);
      expect(agent.code, agent.stderr).toBe(0);
      const result = JSON.parse(agent.stdout) as { run_id: string; commit: string; branch: string };

      const status = await env.cli(['status', '--json']);
      expect(status.code, status.stderr).toBe(0);
      const board = JSON.parse(status.stdout);
      expect(board.run).toMatchObject({ run_id: result.run_id, kind: 'agent', state: 'completed' });
      expect(board.tasks).toHaveLength(1);
      expect(board.tasks[0]).toMatchObject({
        task_id: 'worker',
        role: 'worker',
        status: 'completed',
        attempt: 1,
        turns: 2,
        tool_calls: 2,
        end_reason: 'report',
        branch: result.branch,
        workspace_kind: 'branch',
        scripted: true,
        last_text: 'Writing c.txt.',
        activity: 'ended: report',
      });
      expect(board.tasks[0].usage.output_tokens).toBeGreaterThan(0);
      expect(board.tasks[0].ports).toHaveLength(2);

      // No coordinator recorded the job's result: the detail asks the job for the transcript and commit.
      const source = await BoardSource.open({ keys: env.keys });
      const server = await startBoardServer(source, { host: '127.0.0.1', port: 0 });
      try {
        const detail = JSON.parse((await httpRequest(`${server.url}api/runs/${result.run_id}/tasks/worker`)).body);
        expect(detail.transcript.lines.map((line: { type: string }) => line.type)).toContain('tool_call');
        expect(detail.transcript.lines.find((line: { type: string }) => line.type === 'assistant_text').text).toBe('Writing c.txt.');
        expect(detail.diff).toMatchObject({ repo: expect.stringContaining(path.basename(repo)), commit: result.commit });
        expect(detail.diff.text).toContain('+from the agent');
      } finally {
        await server.close();
        source.close();
      }
    },
    WHOLE_RUN_MS,
  );
});
