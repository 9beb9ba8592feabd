import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { WorkerOutputSchema } from '../../roles/outputs.js';
import { ScriptedModel } from '../../shared/core/model/scripted.js';
import { parseScript, type ScriptTurn } from '../../shared/core/model/scriptFile.js';
import { Harness } from '../../shared/harness/harness.js';
import type { InjectedCard } from '../../shared/infra/queue/memoryPayload.js';
import { toolsNamed } from '../../shared/tools/catalog.js';
import { RecordingModel } from '../context/scriptedSession.js';
import { makeRepo } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';

const SCOPE = 'project:github.com/acme/web';
const FREEZE: InjectedCard = {
  id: 'mem_0a1b2c3d',
  type: 'project',
  title: 'Release freeze from 2026-12-18',
  description: 'No merges to main from 2026-12-18 until 2027-01-05.',
  scope: SCOPE,
  updated: '2026-05-01',
  origin: 'orca',
  score: 1,
};
const REPORT: ScriptTurn = { tools: [{ name: 'Report', input: { summary: 'done', unresolved: [], claimed_checks: [] } }] };

async function runWorker(options: {
  turns: ScriptTurn[];
  cards?: InjectedCard[];
  memory?: boolean;
  toolLimit?: { source: string; rules: string[] };
  repo?: string;
}) {
  const repo = options.repo ?? makeRepo({ 'README.md': '# demo\n' });
  const home = tempDir('orca-home-');
  const prompt = 'Land the checkout fix before the release freeze.';
  const model = new RecordingModel(
    new ScriptedModel(parseScript({ agents: [{ when: { role: 'worker' }, turns: options.turns }] }, 'test script'), {
      role: 'worker',
      prompt,
    }),
  );
  const harness = new Harness({
    role: { name: 'worker', prompt: 'You are a worker.', mode: 'full-access', limits: {}, sandbox: false },
    tools: toolsNamed(['Read', 'Glob', 'Grep', 'Bash', 'Edit', 'Write', 'Remember']),
    outputSchema: WorkerOutputSchema,
    model,
    workspaceRoot: repo,
    workspaceWritable: true,
    sessionDir: path.join(tempDir('orca-session-'), 'session'),
    shellEnv: {},
    stopEvent: 'SubagentStop',
    userClaudeDir: path.join(home, '.claude'),
    homeDir: home,
    memory:
      options.memory === false ? undefined : { scope: SCOPE, today: '2026-05-06', source: 'run r1 task w1', cards: options.cards ?? [] },
    toolLimit: options.toolLimit,
  });
  const result = await harness.run(prompt);
  const transcript = readFileSync(harness.transcript.file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const results = transcript.filter((entry) => entry.type === 'tool_result');
  return { harness, model, result, transcript, results };
}

describe('memory in a session', () => {
  it('puts the chosen cards at the end of the dynamic system block, never in the static one', async () => {
    const repo = makeRepo({ 'README.md': '# demo\n' });
    const without = await runWorker({ turns: [REPORT], memory: false, repo });
    const none = await runWorker({ turns: [REPORT], cards: [], repo });
    const withCards = await runWorker({ turns: [REPORT], cards: [FREEZE], repo });
    const [a, b, c] = [without, none, withCards].map((run) => run.model.requests[0]!.system);
    // The static, cached block is byte-identical with and without cards.
    expect(c![0]!.text).toBe(a![0]!.text);
    expect(b![0]!.text).toBe(a![0]!.text);
    expect(c![0]!.cache).toBe(true);
    expect(a![0]!.text).not.toContain('Release freeze');
    // The dynamic block ends with them; with none chosen it is as without memory.
    expect(c![1]!.text).toContain('# Memory from earlier sessions');
    expect(c![1]!.text).toContain(`- [project] Release freeze from 2026-12-18 (mem_0a1b2c3d, 2026-05-01): No merges to main`);
    expect(c![1]!.text.startsWith(a![1]!.text.split('\n- Date:')[0]!)).toBe(true);
    expect(b![1]!.text).not.toContain('Memory from earlier sessions');
    // Each session has its own date line and scratch folder; the rest of the block is the same.
    const sessionFree = (text: string) => text.replace(/Date: .*/, '').replace(/Scratch folder .*/, '');
    expect(sessionFree(b![1]!.text)).toBe(sessionFree(a![1]!.text));
    // The transcript records what was injected, and the prompt the agent was given.
    const memory = withCards.transcript.find((entry) => entry.type === 'memory');
    expect(memory).toMatchObject({ scope: SCOPE, cards: [{ id: FREEZE.id, title: FREEZE.title, origin: 'orca', score: 1 }] });
    expect(none.transcript.find((entry) => entry.type === 'memory')).toMatchObject({ cards: [] });
    expect(without.transcript.some((entry) => entry.type === 'memory')).toBe(false);
    expect(withCards.transcript.find((entry) => entry.type === 'prompt')).toMatchObject({
      text: 'Land the checkout fix before the release freeze.',
    });
  });

  it('lets Remember keep an admitted card, refuse a relative date with its absolute date, and flag a contradiction', async () => {
    const remember = (input: Record<string, unknown>): ScriptTurn => ({ tools: [{ name: 'Remember', input }] });
    const { harness, results } = await runWorker({
      cards: [FREEZE],
      turns: [
        remember({ type: 'project', title: 'Release freeze moved', description: 'The freeze now starts next Thursday.' }),
        remember({
          type: 'feedback',
          title: 'Tests must not mock the database',
          description: 'The user said a mock hid a broken migration.',
        }),
        remember({ type: 'project', title: 'Release freeze from 2027-01-10', description: 'No merges to main from 2027-01-10.' }),
        remember({ type: 'fact', title: 'x', description: 'y' }),
        REPORT,
      ],
    });
    const texts = results.map((entry) => `${entry.is_error ? 'ERROR ' : ''}${String(entry.preview)}`);
    expect(texts[0]).toContain('ERROR Not remembered:');
    expect(texts[0]).toContain(
      '"next Thursday" is a relative date: as of 2026-05-06 it is 2026-05-14; write 2026-05-14 instead and resubmit',
    );
    expect(texts[1]).toBe('Kept "Tests must not mock the database" (feedback, for github.com/acme/web). orca files it when this job ends.');
    expect(texts[2]).toContain('Not written: it contradicts mem_0a1b2c3d "Release freeze from 2026-12-18"');
    expect(texts[2]).toContain('orca memory review');
    expect(texts[3]).toContain('ERROR');
    expect(texts[3]).toContain('type must be one of user, feedback, project, reference');
    // What goes back with the job: the two admitted cards, credited to the run and task.
    expect(harness.session.toolContext.services.memory?.remembered).toEqual([
      {
        type: 'feedback',
        title: 'Tests must not mock the database',
        description: 'The user said a mock hid a broken migration.',
        scope: SCOPE,
        confidence: 0.8,
        source: 'run r1 task w1',
      },
      expect.objectContaining({ title: 'Release freeze from 2027-01-10', scope: SCOPE }),
    ]);
  });

  it('tells a session without memory that Remember is not available', async () => {
    const { results } = await runWorker({
      memory: false,
      turns: [{ tools: [{ name: 'Remember', input: { type: 'user', title: 'Uses Neovim', description: 'Edits in Neovim.' } }] }, REPORT],
    });
    expect(results[0]).toMatchObject({ is_error: true, preview: expect.stringContaining('Remember is not available') });
  });

  it("limits the agent to a slash command's allowed-tools: its tools, and a tool's calls to its specifiers", async () => {
    const { model, results, transcript, result } = await runWorker({
      toolLimit: { source: '/fix-issue (.claude/commands/fix-issue.md)', rules: ['Read', 'Bash(git status:*)'] },
      turns: [
        { tools: [{ name: 'Bash', input: { command: 'git status --short' } }] },
        { tools: [{ name: 'Bash', input: { command: 'echo escaped > out.txt' } }] },
        { tools: [{ name: 'Edit', input: { file_path: 'README.md', old_string: '# demo', new_string: '# changed' } }] },
        REPORT,
      ],
    });
    const offered = model.requests[0]!.tools.map((tool) => tool.name).sort();
    expect(offered).toEqual(['Glob', 'Grep', 'Read', 'Bash', 'Report'].sort());
    expect(results[0]).toMatchObject({ name: 'Bash', is_error: false });
    expect(results[1]).toMatchObject({ name: 'Bash', is_error: true });
    expect(String(results[1]!.preview)).toContain(
      'Permission to use Bash was denied: `echo escaped` is outside the allowed-tools of /fix-issue (.claude/commands/fix-issue.md): Bash may be used only as Bash(git status:*)',
    );
    expect(transcript).toContainEqual(
      expect.objectContaining({ type: 'permission', decision: 'deny', by: 'limit:/fix-issue (.claude/commands/fix-issue.md)' }),
    );
    expect(results[2]).toMatchObject({ name: 'Edit', is_error: true });
    // Report is every agent's, whatever the command allows.
    expect(result.reason).toBe('report');
  });
});
