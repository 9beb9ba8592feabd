import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runClaudeCodeProject, WORKER_REPORT } from './harnessKit.js';

const SKILL = [
  '---',
  'name: fix-issue',
  'description: Fix a GitHub issue by number.',
  '---',
  'Fix issue $ARGUMENTS. The first word is $0, the second $ARGUMENTS[1].',
  'Run ${CLAUDE_SKILL_DIR}/scripts/check.sh when done.',
].join('\n');

function toolResults(run: Awaited<ReturnType<typeof runClaudeCodeProject>>): string[] {
  return run.harness.session.messages.flatMap((message) =>
    message.content.flatMap((block) => (block.type === 'tool_result' ? [block.content] : [])),
  );
}

describe("skills as Claude Code's are written", () => {
  it('the Skill tool takes args; $ARGUMENTS, $0, $ARGUMENTS[N] and ${CLAUDE_SKILL_DIR} are expanded', async () => {
    const run = await runClaudeCodeProject({
      files: { '.claude/skills/fix-issue/SKILL.md': SKILL },
      turns: [
        { tools: [{ name: 'Skill', input: { skill: 'fix-issue', args: '123 urgent' } }] },
        { tools: [{ name: 'Report', input: WORKER_REPORT }] },
      ],
    });
    const [loaded] = toolResults(run);
    const dir = path.join(run.repo, '.claude/skills/fix-issue');
    expect(loaded).toContain('Fix issue 123 urgent. The first word is 123, the second urgent.');
    expect(loaded).toContain(`Run ${dir}/scripts/check.sh when done.`);
  });

  it('a body without placeholders gets the arguments appended; a very long body is given whole, not spilled', async () => {
    const long = Array.from({ length: 2000 }, (_, i) => `Step ${i}: do the thing carefully.`).join('\n');
    const run = await runClaudeCodeProject({
      files: { '.claude/skills/long/SKILL.md': `---\nname: long\ndescription: A long procedure.\n---\n${long}\nLAST LINE` },
      turns: [{ tools: [{ name: 'Skill', input: { skill: 'long', args: 'now' } }] }, { tools: [{ name: 'Report', input: WORKER_REPORT }] }],
    });
    const [loaded] = toolResults(run);
    expect(long.length).toBeGreaterThan(60_000);
    expect(loaded).toContain('Step 1999: do the thing carefully.\nLAST LINE\n\nARGUMENTS: now');
    expect(loaded).not.toContain('Output too large');
  });
});
