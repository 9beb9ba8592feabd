import { realpathSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinRole } from '../../roles/builtinRoles.js';
import { outputSchema } from '../../roles/outputs.js';
import { NEAR_END } from '../../shared/context/prompt/turnReminder.js';
import type { AgentEvent } from '../../shared/core/events/agentEvent.js';
import type { AgentLimits } from '../../shared/core/loop/limits.js';
import { LIMIT_REACHED } from '../../shared/core/loop/query.js';
import type { Message } from '../../shared/core/model/message.js';
import { ScriptedModel } from '../../shared/core/model/scripted.js';
import { parseScript, type ScriptTurn } from '../../shared/core/model/scriptFile.js';
import { RECEIVED } from '../../shared/core/tool/report.js';
import { Harness } from '../../shared/harness/harness.js';
import { REPORT_REMINDER } from '../../shared/infra/tasks/reportReminder.js';
import { toolsNamed } from '../../shared/tools/catalog.js';
import { RecordingModel } from '../context/scriptedSession.js';
import { makeRepo } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';

/**
 * A worker in the whole harness, its Scripted model playing a model with Claude Code's habits:
 * it ends with a text summary, it forgets its budgets. Each request it is sent is recorded.
 */
async function worker(
  turns: ScriptTurn[],
  limits: Partial<AgentLimits> = {},
  options: { role?: string; sandbox?: boolean; sessionDir?: string } = {},
) {
  const name = options.role ?? 'worker';
  const role = builtinRole(name)!;
  const script = parseScript({ agents: [{ when: { role: name }, turns }] }, 'test script');
  const model = new RecordingModel(new ScriptedModel(script, { role: name, prompt: 'Add a note.' }));
  const harness = new Harness({
    role: { ...role, limits: { ...role.limits, ...limits }, sandbox: options.sandbox ?? false },
    tools: toolsNamed(role.tools),
    outputSchema: outputSchema(role.output),
    model,
    workspaceRoot: makeRepo({ 'README.md': 'shop\n' }),
    workspaceWritable: true,
    sessionDir: options.sessionDir ?? path.join(tempDir('orca-session-'), 'session'),
    shellEnv: {},
    stopEvent: 'SubagentStop',
    userClaudeDir: tempDir('orca-claude-'),
    homeDir: tempDir('orca-home-'),
    lsp: { enabled: false },
  });
  const events: AgentEvent[] = [];
  const result = await harness.run('Add a note.', (event) => events.push(event));
  return { result, events, requests: model.requests, harness };
}

const REPORT: ScriptTurn = { tools: [{ name: 'Report', input: { summary: 'added NOTES.md', unresolved: [], claimed_checks: [] } }] };
const SUMMARY: ScriptTurn = { text: 'I added NOTES.md. Summary: the note is in place.' };
const WRITE: ScriptTurn = { tools: [{ name: 'Write', input: { file_path: 'NOTES.md', content: '# Notes\n' } }] };

/** Every text the model was sent in the last message of a request (tool results and text blocks). */
function lastUserTexts(messages: Message[]): string {
  const last = messages.at(-1)!;
  return last.content.map((block) => ('text' in block ? block.text : 'content' in block ? String(block.content) : '')).join('\n');
}

describe('a model that ends with a text summary instead of Report', () => {
  it('is told once that its work is kept only if it calls Report, and its Report then ends the session', async () => {
    const { result, requests } = await worker([WRITE, SUMMARY, REPORT]);
    expect(result.reason).toBe('report');
    expect(result.turns).toBe(3);
    expect(lastUserTexts(requests[2]!.messages)).toContain(REPORT_REMINDER);
    expect(REPORT_REMINDER).toMatch(/^You ended without Report: your work is kept only if you call Report now\./);
  });

  it('ends failed, as before, when it stops without Report a second time', async () => {
    const { result, requests } = await worker([WRITE, SUMMARY, SUMMARY, REPORT]);
    expect(result).toMatchObject({ reason: 'no_tool_use', turns: 3 });
    expect(requests.map((request) => lastUserTexts(request.messages).includes(REPORT_REMINDER))).toEqual([false, false, true]);
  });
});

describe('the Report reply', () => {
  it('says the report was received and is being checked', async () => {
    const { events } = await worker([WRITE, REPORT]);
    const reply = events.find((event) => event.type === 'tool_result' && event.name === 'Report');
    expect(reply).toMatchObject({ is_error: false, preview: RECEIVED });
    expect(RECEIVED).toBe('Report received; orca is checking it.');
  });
});

describe('budgets the model can see', () => {
  it('says what is left in turns and tokens on every turn', async () => {
    const { requests } = await worker([WRITE, REPORT]);
    expect(lastUserTexts(requests[1]!.messages)).toMatch(/Turn 2 of 80\. Left: 78 turns, [\d,]+ tokens, \$10\.00, \d+ min\./);
    expect(lastUserTexts(requests[1]!.messages)).not.toContain(NEAR_END);
  });

  it('tells a worker near its token budget to run its checks and Report now, and its Report is accepted', async () => {
    // How many tokens the first turn spends, as the budget counts them, from the same script with room to spare.
    const probe = await worker([WRITE, REPORT]);
    const firstTurn = probe.events.find((event) => event.type === 'usage')!;
    const spentAfterFirst = Math.round(
      (firstTurn.total as { input_tokens: number }).input_tokens +
        (firstTurn.total as { output_tokens: number }).output_tokens +
        (firstTurn.total as { cache_creation_tokens: number }).cache_creation_tokens +
        (firstTurn.total as { cache_read_tokens: number }).cache_read_tokens * 0.1,
    );
    // 95% of the budget spent after the first turn: the second is in the last tenth.
    const maxTokens = Math.round(spentAfterFirst / 0.95);
    const { result, requests } = await worker([WRITE, REPORT], { maxTokens });
    expect(lastUserTexts(requests[1]!.messages)).toContain(NEAR_END);
    expect(NEAR_END).toContain('run your checks and Report now');
    expect(result.reason).toBe('report');
  });

  it('asks once for a Report when a budget is spent, and takes the Report of that last turn', async () => {
    const { result, requests, events } = await worker([WRITE, REPORT], { maxTokens: 1 });
    expect(result.reason).toBe('report');
    expect(result.turns).toBe(2);
    expect(lastUserTexts(requests[1]!.messages)).toContain(LIMIT_REACHED.split('{limit}')[1]!.trim());
    expect(
      events.some((event) => event.type === 'notice' && String(event.message).endsWith('the agent has one last turn to Report in')),
    ).toBe(true);
  });

  it('ends the session at the limit when the last turn brings no Report', async () => {
    const spent = await worker([WRITE, WRITE, WRITE, REPORT], { maxTokens: 1 });
    expect(spent.result).toMatchObject({ reason: 'token_budget', turns: 2 });
    const turns = await worker([WRITE, WRITE, WRITE, REPORT], { maxTurns: 2 });
    expect(turns.result).toMatchObject({ reason: 'max_turns', turns: 3 });
    expect(lastUserTexts(turns.requests[2]!.messages)).toContain(
      'You have reached the limit of 2 turns. This is your last turn: call Report now.',
    );
  });
});

describe('scratch files', () => {
  it('written by a Bash heredoc under $TMPDIR in the sandbox, are read back with Read', async () => {
    const sessionDir = path.join(tempDir('orca-session-'), 'session');
    const probe = path.join(realpathSync(path.dirname(sessionDir)), 'session', 'tmp', 'probe.mjs');
    const { result, events, requests } = await worker(
      [
        {
          tools: [
            // The path as the environment block names the scratch folder: a write the checks can see.
            { name: 'Bash', input: { command: `cat > ${probe} <<'EOF'\nconsole.log(6 * 7);\nEOF\nnode "$TMPDIR/probe.mjs"` } },
          ],
        },
        { tools: [{ name: 'Read', input: { file_path: probe } }] },
        {
          tools: [
            {
              name: 'Report',
              input: { verdict: 'PASS', checks: [{ command: 'node "$TMPDIR/probe.mjs"', exit_code: 0, result: '42' }], problems: [] },
            },
          ],
        },
      ],
      {},
      { role: 'verification', sandbox: true, sessionDir },
    );
    expect(result.reason).toBe('report');
    expect(requests[0]!.system[1]!.text).toContain(`- Scratch folder (\`$TMPDIR\`): ${path.dirname(probe)}.`);
    const results = events.filter((event) => event.type === 'tool_result');
    expect(results[0]).toMatchObject({ name: 'Bash', is_error: false, preview: '42\nExit code: 0' });
    expect(results[1]).toMatchObject({ name: 'Read', is_error: false, preview: expect.stringContaining('console.log(6 * 7);') });
  });
});
