import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRule, ruleMatches, splitPatternList } from '../../shared/context/instructions/rules.js';
import { createContextAssembler } from '../../shared/context/prompt/assembler.js';
import { makeRepo, writeFiles } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';
import { messagesText, REPORT_TURN, read, runScripted } from './scriptedSession.js';

const FRONTEND = '---\npaths: src/**/*.{ts,tsx}, lib/*.js\n---\nFRONTEND-RULE: no any.\n';
const MIGRATIONS = '---\npaths:\n  - "migrations/**"\n  - db/*.sql\n---\nMIGRATION-RULE: always write a rollback.\n';
const ALWAYS = '# Always\nALWAYS-RULE: be kind to the build.\n';

function repoWithRules(): string {
  return makeRepo({
    '.claude/rules/frontend.md': FRONTEND,
    '.claude/rules/db/migrations.md': MIGRATIONS,
    '.claude/rules/always.md': ALWAYS,
    'src/app.ts': 'export const app = 1;\n',
    'src/view.tsx': 'export const view = 2;\n',
    'migrations/001.sql': 'create table t (id int);\n',
    'README.md': '# readme\n',
  });
}

describe('rules', () => {
  it('splits comma lists without breaking braces, and matches relative to the project', () => {
    expect(splitPatternList('src/**/*.{ts,tsx}, lib/*.js')).toEqual(['src/**/*.{ts,tsx}', 'lib/*.js']);
    const dir = makeRepo({ '.claude/rules/a.md': FRONTEND, '.claude/rules/b.md': '---\npaths: **/*.test.ts\n---\nTESTS\n' });
    const rule = readRule(path.join(dir, '.claude/rules/a.md'), dir);
    expect(ruleMatches(rule, path.join(dir, 'src/deep/x.tsx'))).toBe(true);
    expect(ruleMatches(rule, path.join(dir, 'src/x.py'))).toBe(false);
    expect(ruleMatches(rule, path.join(dir, 'lib/x.js'))).toBe(true);
    expect(ruleMatches(rule, path.join(path.dirname(dir), 'src/x.ts'))).toBe(false);
    // Not strict YAML (starts with *), read as Claude Code files mean it.
    const tests = readRule(path.join(dir, '.claude/rules/b.md'), dir);
    expect(tests.patterns).toEqual(['**/*.test.ts']);
    expect(ruleMatches(tests, path.join(dir, 'a/b.test.ts'))).toBe(true);
  });

  it('loads unconditional rules at the start and injects a conditional rule once, after a matching Read', async () => {
    const repo = repoWithRules();
    const { model, result } = await runScripted({
      root: repo,
      turns: [
        read('README.md'),
        read('src/app.ts'),
        read('src/app.ts'),
        read('src/view.tsx'),
        read('migrations/001.sql'),
        read('missing.ts'),
        REPORT_TURN,
      ],
      context: createContextAssembler({ homeDir: tempDir('orca-home-') }),
    });
    expect(result.reason).toBe('report');
    const requests = model.requests;
    const count = (index: number, marker: string) => messagesText(requests[index]!).split(marker).length - 1;

    // Turn 1: the unconditional rule is in the context message, the conditional ones are not.
    expect(count(0, 'ALWAYS-RULE')).toBe(1);
    expect(count(0, 'FRONTEND-RULE')).toBe(0);
    expect(count(0, 'MIGRATION-RULE')).toBe(0);
    // After reading README.md (turn 2's request): nothing matched.
    expect(count(1, 'FRONTEND-RULE')).toBe(0);
    // After reading src/app.ts: injected into the newest user message, once.
    expect(count(2, 'FRONTEND-RULE')).toBe(1);
    const newest = requests[2]!.messages.at(-1)!;
    expect(
      newest.content.some(
        (block) => block.type === 'text' && block.text.includes('FRONTEND-RULE') && block.text.includes('you read src/app.ts'),
      ),
    ).toBe(true);
    // Reading it again, and reading another matching file: still once in the whole conversation.
    expect(count(3, 'FRONTEND-RULE')).toBe(1);
    expect(count(4, 'FRONTEND-RULE')).toBe(1);
    // The YAML-list rule after its own Read.
    expect(count(4, 'MIGRATION-RULE')).toBe(0);
    expect(count(5, 'MIGRATION-RULE')).toBe(1);
    expect(count(6, 'MIGRATION-RULE')).toBe(1);
    expect(count(6, 'ALWAYS-RULE')).toBe(1);
  });

  it('does not inject a rule after a failed Read, or after an Edit or Bash touching a matching file', async () => {
    const repo = repoWithRules();
    const { model } = await runScripted({
      root: repo,
      turns: [
        read('src/nope.ts'),
        { tools: [{ name: 'Bash', input: { command: 'cat src/app.ts' } }] },
        { tools: [{ name: 'Write', input: { file_path: 'src/new.ts', content: 'export {};\n' } }] },
        REPORT_TURN,
      ],
      context: createContextAssembler({ homeDir: tempDir('orca-home-') }),
    });
    for (const request of model.requests) expect(messagesText(request)).not.toContain('FRONTEND-RULE');
  });

  it("loads the user's own rules from ~/.claude/rules", async () => {
    const home = tempDir('orca-home-');
    writeFiles(home, { '.claude/rules/mine.md': '---\npaths: "**/*.ts"\n---\nUSER-RULE\n', '.claude/rules/plain.md': 'USER-ALWAYS\n' });
    const repo = repoWithRules();
    const { model } = await runScripted({
      root: repo,
      turns: [read('src/app.ts'), REPORT_TURN],
      context: createContextAssembler({ homeDir: home }),
    });
    expect(messagesText(model.requests[0]!)).toContain('USER-ALWAYS');
    expect(messagesText(model.requests[0]!)).not.toContain('USER-RULE');
    expect(messagesText(model.requests[1]!)).toContain('USER-RULE');
  });
});
