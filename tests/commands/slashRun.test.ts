import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRunEvents } from '../../shared/infra/board/runEvents.js';
import { makeRepo } from '../support/gitRepo.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';

const FIX_ISSUE = `---
description: Fix an issue by number
argument-hint: [issue-number]
allowed-tools: Read, Grep, Glob, Bash(git status:*), Remember
model: haiku
---

Fix issue #$ARGUMENTS following @docs/conventions.md.
`;

const REPORT = (input: Record<string, unknown>) => ({ tools: [{ name: 'Report', input }] });

/** A whole run: the coordinator, one Plan, one Worker that tries its limits and remembers, one Verification agent. */
const SCRIPT = {
  agents: [
    { when: { role: 'coordinator' }, turns: [REPORT({ questions: [] })] },
    {
      when: { role: 'plan' },
      turns: [
        REPORT({
          subtasks: [{ id: 'fix', title: 'fix the issue', instructions: 'Fix it.', paths: ['src/**'], depends_on: [] }],
          risks: [],
        }),
      ],
    },
    {
      when: { role: 'worker', task: 'fix' },
      turns: [
        { tools: [{ name: 'Bash', input: { command: 'git status --short' } }] },
        { tools: [{ name: 'Bash', input: { command: 'echo changed > src/a.ts' } }] },
        { tools: [{ name: 'Edit', input: { file_path: 'src/a.ts', old_string: 'a = 1', new_string: 'a = 2' } }] },
        {
          tools: [
            {
              name: 'Remember',
              input: {
                type: 'feedback',
                title: 'Summaries quote the issue',
                description: 'The user wants the issue text quoted in the summary.',
              },
            },
          ],
        },
        REPORT({ summary: 'looked at it', unresolved: ["could not edit under the command's allowed-tools"], claimed_checks: [] }),
      ],
    },
    { when: { role: 'verification' }, turns: [REPORT({ verdict: 'FAIL', checks: [], problems: [], confirmations: [] })] },
  ],
};

interface Entry {
  task_id?: string;
  source: string;
  event: Record<string, unknown> & { type: string };
}

function transcript(file: string): Array<Record<string, unknown>> {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('orca run /command: a slash command as the task, with memory', () => {
  it(
    'runs the expanded prompt, limits every agent to allowed-tools, shows matching cards and files what the worker remembers',
    async () => {
      const env = await OrcaTestEnv.open();
      const repo = makeRepo({
        '.claude/commands/fix-issue.md': FIX_ISSUE,
        'docs/conventions.md': 'Quote the issue in every summary.\n',
        'src/a.ts': 'export const a = 1;\n',
      });
      const script = path.join(env.dir('scripts'), 'fix-issue.json');
      writeFileSync(script, JSON.stringify(SCRIPT));

      // A card the user kept earlier, about fixing issues in this repository.
      const added = await env.cli([
        'memory',
        'add',
        '--type',
        'feedback',
        '--title',
        'Issue fixes',
        '--description',
        'Every fix of a tracked issue adds a regression test first.',
        '--repo',
        repo,
      ]);
      expect(added.code, added.stderr).toBe(0);
      const cardId = /remembered (mem_[0-9a-f]{8})/.exec(added.stdout)![1]!;

      const listed = await env.cli(['run', '--list-commands', '--repo', repo]);
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toBe('/fix-issue [issue-number]\tFix an issue by number (project)\n');

      const unknown = await env.cli(['run', '/fix-isue', '7', '--repo', repo, '--script', script]);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toBe('orca: unknown command /fix-isue: the commands are /fix-issue (orca run --list-commands)\n');

      const run = await env.cli(['run', '/fix-issue', '123', '--repo', repo, '--script', script, '--check', 'true', '--workers', '1'], {
        deadlineMs: 240_000,
      });
      const runId = /^orca: run (\S+)/.exec(run.stderr)![1]!;
      expect(run.stderr).toContain(
        'command /fix-issue (.claude/commands/fix-issue.md), with docs/conventions.md; its agents may use only Read, Grep, Glob, Bash(git status:*), Remember',
      );
      const entries = (await readRunEvents(env.redis, env.keys, runId, '0', 10_000)).map(({ entry }) => entry as Entry);
      const created = entries.find((entry) => entry.event.type === 'run_created')!.event;
      expect(created.task).toBe(
        'Fix issue #123 following @docs/conventions.md.\n\nContents of docs/conventions.md (at the base commit ' +
          `${String(created.base).slice(0, 12)}):\n\`\`\`\nQuote the issue in every summary.\n\`\`\``,
      );
      // The command's model is kept for the run (the Scripted model plays it here).
      expect(created.settings).toMatchObject({
        memory: true,
        command: { invoked: '/fix-issue 123', file: '.claude/commands/fix-issue.md', model: 'haiku' },
      });

      // The coordinator's transcript shows the expanded prompt, and the card shown to it.
      const result = (task: string) => entries.find((entry) => entry.event.type === 'task_result' && entry.event.task_id === task)!.event;
      const coordinator = transcript(String(result('_coordinator').transcript));
      const prompt = coordinator.find((entry) => entry.type === 'prompt')!;
      expect(String(prompt.text)).toContain('Fix issue #123 following @docs/conventions.md.');
      expect(String(prompt.text)).toContain('Quote the issue in every summary.');
      expect(coordinator.find((entry) => entry.type === 'memory')).toMatchObject({ cards: [{ id: cardId, title: 'Issue fixes' }] });

      // The worker had only what allowed-tools names: git status ran, echo and Edit did not.
      const worker = transcript(String(result('fix').transcript));
      const results = worker.filter((entry) => entry.type === 'tool_result');
      expect(results.map((entry) => [entry.name, entry.is_error])).toEqual([
        ['Bash', false],
        ['Bash', true],
        ['Edit', true],
        ['Remember', false],
        ['Report', false],
      ]);
      expect(String(results[1]!.preview)).toContain('is outside the allowed-tools of /fix-issue (.claude/commands/fix-issue.md)');
      expect(readFileSync(path.join(repo, 'src/a.ts'), 'utf8')).toBe('export const a = 1;\n');

      // What it remembered was filed by the coordinator, credited to the run and the task.
      const filed = entries.find((entry) => entry.event.type === 'memory_filed')!.event;
      expect(filed).toMatchObject({ task_id: 'fix', outcome: 'added', title: 'Summaries quote the issue' });
      const list = await env.cli(['memory', 'list', '--json', '--repo', repo]);
      const cards = (JSON.parse(list.stdout) as { cards: Array<{ id: string; title: string; source: string }> }).cards;
      expect(cards.map((card) => card.title).sort()).toEqual(['Issue fixes', 'Summaries quote the issue']);
      expect(cards.find((card) => card.title === 'Summaries quote the issue')!.source).toBe(`run ${runId} task fix`);
    },
    SLOW_TEST_MS,
  );
});
