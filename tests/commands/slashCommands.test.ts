import { describe, expect, it } from 'vitest';
import { splitArguments } from '../../shared/context/commands/commandArguments.js';
import { findCommand, loadCommands } from '../../shared/context/commands/commandCatalog.js';
import { expandCommand } from '../../shared/context/commands/expandCommand.js';
import { filesAtCommit } from '../../shared/context/commands/projectFiles.js';
import { parseSlashCommand } from '../../shared/context/commands/slashCommand.js';
import { bashTool } from '../../shared/tools/bash.js';
import { commitFiles, git, makeRepo, writeFiles } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';

const FIX_ISSUE = `---
description: Fix an issue by number
argument-hint: [issue-number]
allowed-tools: Read, Grep, Bash(git status:*), Bash(gh issue view:*)
model: haiku
---

Fix issue #$ARGUMENTS following our coding standards.
Read the issue first; our conventions are in @docs/conventions.md.
`;

describe("slash commands in Claude Code's format", () => {
  it('reads the front matter fields, with description defaulting to the first line', () => {
    const command = parseSlashCommand(FIX_ISSUE, 'fix-issue.md', 'project', '.claude/commands/fix-issue.md');
    expect(command).toMatchObject({
      name: 'fix-issue',
      scope: 'project',
      description: 'Fix an issue by number',
      argumentHint: '[issue-number]',
      allowedTools: ['Read', 'Grep', 'Bash(git status:*)', 'Bash(gh issue view:*)'],
      model: 'haiku',
    });
    expect(command.namespace).toBeUndefined();
    const plain = parseSlashCommand(
      '# Review the diff\n\nLook for bugs.\n',
      'ci/review.md',
      'user',
      '/home/u/.claude/commands/ci/review.md',
    );
    expect(plain).toMatchObject({ name: 'review', namespace: 'ci', description: 'Review the diff', allowedTools: [] });
    expect(parseSlashCommand('---\nallowed-tools: [Read, "Bash(git diff:*)"]\n---\nx', 'a.md', 'project', 'a.md').allowedTools).toEqual([
      'Read',
      'Bash(git diff:*)',
    ]);
  });

  it('expands $ARGUMENTS, $1 and the rest as Claude Code does', async () => {
    const files = { label: 'test', list: async () => [], read: async () => undefined };
    const command = (body: string) => parseSlashCommand(body, 'c.md', 'project', 'c.md');
    const here = { checkout: tempDir('orca-checkout-'), shell: bashTool };
    expect((await expandCommand(command('Fix issue #$ARGUMENTS now.'), '123', files, here)).prompt).toBe('Fix issue #123 now.');
    expect(
      (await expandCommand(command('Review PR #$1 with priority $2, assign $3.'), '456 high "Ada Lovelace"', files, here)).prompt,
    ).toBe('Review PR #456 with priority high, assign Ada Lovelace.');
    // A positional past the last argument is empty; all arguments as typed go to $ARGUMENTS.
    expect((await expandCommand(command('[$1] [$2] [$ARGUMENTS]'), '"a b"', files, here)).prompt).toBe('[a b] [] ["a b"]');
    // Without a placeholder, the arguments are appended.
    expect((await expandCommand(command('Summarise the changes.'), 'since v2', files, here)).prompt).toBe(
      'Summarise the changes.\n\nARGUMENTS: since v2',
    );
    expect((await expandCommand(command('Summarise the changes.'), '', files, here)).prompt).toBe('Summarise the changes.');
    expect(splitArguments('a "b c" \'d\' $HOME')).toEqual(['a', 'b c', 'd', '$HOME']);
  });

  it('attaches @file references from the base commit and leaves other @words', async () => {
    const repo = makeRepo({ 'docs/conventions.md': 'Use early returns.\n', 'src/a.ts': 'export const a = 1;\n' });
    const base = git(repo, 'rev-parse', 'HEAD');
    // Changed after the base: the run sees the base's version.
    commitFiles(repo, { 'docs/conventions.md': 'Changed later.\n' }, 'later');
    writeFiles(repo, { 'src/a.ts': 'uncommitted\n' });
    const files = filesAtCommit(repo, base);
    const command = parseSlashCommand(FIX_ISSUE, 'fix-issue.md', 'project', '.claude/commands/fix-issue.md');
    const expanded = await expandCommand(command, '123', files, { checkout: repo, shell: bashTool });
    expect(expanded.files).toEqual(['docs/conventions.md']);
    expect(expanded.prompt).toContain('Fix issue #123 following our coding standards.');
    expect(expanded.prompt).toContain(
      `Contents of docs/conventions.md (at the base commit ${base.slice(0, 12)}):\n\`\`\`\nUse early returns.\n\`\`\``,
    );
    expect(expanded.prompt).not.toContain('Changed later');

    const review = parseSlashCommand('Review @$1, ping @alice, not `@src/a.ts` in code, nor @../etc/passwd.', 'r.md', 'project', 'r.md');
    const reviewed = await expandCommand(review, 'src/a.ts', files, { checkout: repo, shell: bashTool });
    expect(reviewed.files).toEqual(['src/a.ts']);
    expect(reviewed.prompt).toContain('export const a = 1;');
    expect(reviewed.prompt).toContain('ping @alice');
  });

  it('runs !`command` in the checkout when allowed-tools allows it, and refuses it otherwise', async () => {
    const repo = makeRepo({ 'README.md': '# demo\n' });
    writeFiles(repo, { 'new.txt': 'x\n' });
    const files = filesAtCommit(repo, git(repo, 'rev-parse', 'HEAD'));
    const commit = (allowed: string) =>
      parseSlashCommand(
        `---\nallowed-tools: ${allowed}\n---\nStatus:\n!\`git status --short\`\nBranch: !\`git branch --show-current\``,
        'commit.md',
        'project',
        '.claude/commands/commit.md',
      );
    const expanded = await expandCommand(commit('Bash(git status:*), Bash(git branch:*)'), '', files, { checkout: repo, shell: bashTool });
    expect(expanded.prompt).toBe('Status:\n?? new.txt\nBranch: main');
    await expect(expandCommand(commit('Bash(git status:*)'), '', files, { checkout: repo, shell: bashTool })).rejects.toThrow(
      '.claude/commands/commit.md runs !`git branch --show-current`, which it does not allow: `git branch --show-current` is outside the allowed-tools of .claude/commands/commit.md',
    );
    const none = parseSlashCommand('Status: !`git status`', 'commit.md', 'project', '.claude/commands/commit.md');
    await expect(expandCommand(none, '', files, { checkout: repo, shell: bashTool })).rejects.toThrow(
      '.claude/commands/commit.md has no allowed-tools',
    );
    // A compound command is judged part by part: a prefix rule does not let `&&` through.
    const sneaky = parseSlashCommand(
      '---\nallowed-tools: Bash(git status:*)\n---\n!`git status && touch pwned`',
      'c.md',
      'project',
      'c.md',
    );
    await expect(expandCommand(sneaky, '', files, { checkout: repo, shell: bashTool })).rejects.toThrow(
      '`touch pwned` is outside the allowed-tools',
    );
    const failing = parseSlashCommand('---\nallowed-tools: Bash\n---\n!`git log --oneline nosuchref`', 'c.md', 'project', 'c.md');
    await expect(expandCommand(failing, '', files, { checkout: repo, shell: bashTool })).rejects.toThrow(
      'c.md: !`git log --oneline nosuchref` failed (exit code 128)',
    );
  });

  it("finds a command by name or namespace among the project's (at the base) and the user's", async () => {
    const repo = makeRepo({
      '.claude/commands/fix-issue.md': FIX_ISSUE,
      '.claude/commands/frontend/component.md': 'Make a component named $1.\n',
      '.claude/commands/backend/component.md': 'Make a service named $1.\n',
      '.claude/commands/notes.txt': 'not a command\n',
    });
    const base = git(repo, 'rev-parse', 'HEAD');
    writeFiles(repo, { '.claude/commands/uncommitted.md': 'Not at the base.\n' });
    const userDir = tempDir('orca-claude-');
    writeFiles(userDir, { 'commands/fix-issue.md': "The user's own.\n", 'commands/standup.md': 'Write my standup.\n' });
    const catalog = await loadCommands({ project: filesAtCommit(repo, base), userClaudeDir: userDir });
    expect(catalog.problems).toEqual([]);
    expect(catalog.commands.map((c) => `${c.scope}:${c.namespace ? `${c.namespace}:` : ''}${c.name}`)).toEqual([
      'project:backend:component',
      'project:fix-issue',
      'project:frontend:component',
      'user:standup',
    ]);
    expect(catalog.shadowed.map((c) => c.name)).toEqual(['fix-issue']);
    expect(findCommand(catalog, '/fix-issue')).toMatchObject({ command: { scope: 'project', name: 'fix-issue' } });
    expect(findCommand(catalog, '/frontend:component')).toMatchObject({ command: { namespace: 'frontend' } });
    expect(findCommand(catalog, '/standup')).toMatchObject({ command: { scope: 'user' } });
    expect(findCommand(catalog, '/component')).toEqual({
      error: '/component is ambiguous: call it as /backend:component or /frontend:component',
    });
    expect(findCommand(catalog, '/uncommitted')).toEqual({
      error:
        'unknown command /uncommitted: the commands are /backend:component, /fix-issue, /frontend:component, /standup (orca run --list-commands)',
    });
  });
});
