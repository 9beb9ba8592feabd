import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadProjectInstructions } from '../../shared/context/instructions/projectInstructions.js';
import { createContextAssembler } from '../../shared/context/prompt/assembler.js';
import { makeRepo, writeFiles } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';
import { messagesText, REPORT_TURN, runScripted } from './scriptedSession.js';

function texts(cwd: string, homeDir: string): { paths: string[]; all: string; skipped: string[] } {
  const loaded = loadProjectInstructions({ cwd, homeDir });
  return {
    paths: loaded.files.map((file) => file.path),
    all: loaded.files.map((file) => file.text).join('\n'),
    skipped: loaded.skipped.map((item) => `${path.basename(item.path)}: ${item.reason}`),
  };
}

describe('project instructions', () => {
  it('finds every file from the user and the repository root down to the working folder, in order', () => {
    const home = tempDir('orca-home-');
    writeFiles(home, { '.claude/CLAUDE.md': 'USER-LEVEL\n' });
    const repo = makeRepo({
      'CLAUDE.md': 'ROOT-CLAUDE\n',
      '.claude/CLAUDE.md': 'ROOT-DOT-CLAUDE\n',
      'AGENTS.md': 'ROOT-AGENTS\n',
      'CLAUDE.local.md': 'ROOT-LOCAL\n',
      'pkg/CLAUDE.md': 'PKG-CLAUDE\n',
      'pkg/app/AGENTS.md': 'APP-AGENTS\n',
      'pkg/app/.claude/CLAUDE.md': 'APP-DOT-CLAUDE\n',
      'other/CLAUDE.md': 'SIBLING-NOT-ON-THE-WAY\n',
    });
    const cwd = path.join(repo, 'pkg', 'app');
    const { all } = texts(cwd, home);
    const order = [
      'USER-LEVEL',
      'ROOT-CLAUDE',
      'ROOT-DOT-CLAUDE',
      'ROOT-AGENTS',
      'ROOT-LOCAL',
      'PKG-CLAUDE',
      'APP-DOT-CLAUDE',
      'APP-AGENTS',
    ];
    const positions = order.map((marker) => all.indexOf(marker));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(all).not.toContain('SIBLING-NOT-ON-THE-WAY');
  });

  it('follows @imports up to 4 deep, relative to the importing file and from ~/, stopping cycles', () => {
    const home = tempDir('orca-home-');
    writeFiles(home, { '.claude/prefs.md': 'HOME-PREFS\n' });
    const repo = makeRepo({
      'CLAUDE.md': 'See @docs/one.md and @~/.claude/prefs.md.\n',
      'docs/one.md': 'ONE @sub/two.md\n',
      'docs/sub/two.md': 'TWO @../../deep/three.md\n',
      'deep/three.md': 'THREE @./four.md\n',
      'deep/four.md': 'FOUR @five.md @../CLAUDE.md\n',
      'deep/five.md': 'FIVE-TOO-DEEP\n',
    });
    const { all, skipped } = texts(repo, home);
    for (const marker of ['ONE', 'TWO', 'THREE', 'FOUR', 'HOME-PREFS']) expect(all).toContain(marker);
    expect(all).not.toContain('FIVE-TOO-DEEP');
    expect(skipped.some((line) => line.startsWith('five.md: ') && line.includes('more than 4 imports deep'))).toBe(true);
    // The cycle back to CLAUDE.md loads nothing twice.
    expect(all.match(/See @docs\/one\.md/g)).toHaveLength(1);
  });

  it('does not import from code spans or fences, and strips HTML comments', () => {
    const home = tempDir('orca-home-');
    const repo = makeRepo({
      'CLAUDE.md': [
        '# Rules',
        '<!-- HIDDEN-COMMENT: maintainers only -->',
        'Run `@inline.md` never; see @real.md.',
        '```',
        '@fenced.md',
        '<!-- KEPT-IN-FENCE -->',
        '```',
        '<!--',
        'MULTI-LINE-HIDDEN',
        '-->',
        'End.',
      ].join('\n'),
      'real.md': 'REAL-IMPORT <!-- HIDDEN-IN-IMPORT -->\n',
      'inline.md': 'INLINE-NOT-IMPORTED\n',
      'fenced.md': 'FENCED-NOT-IMPORTED\n',
    });
    const { all } = texts(repo, home);
    expect(all).toContain('REAL-IMPORT');
    expect(all).not.toContain('INLINE-NOT-IMPORTED');
    expect(all).not.toContain('FENCED-NOT-IMPORTED');
    expect(all).not.toContain('HIDDEN-COMMENT');
    expect(all).not.toContain('MULTI-LINE-HIDDEN');
    expect(all).not.toContain('HIDDEN-IN-IMPORT');
    expect(all).toContain('<!-- KEPT-IN-FENCE -->');
    expect(all).toContain('End.');
  });

  it('refuses imports that would pull files from outside the project into the prompt', () => {
    const home = tempDir('orca-home-');
    const outside = tempDir('orca-outside-');
    writeFileSync(path.join(outside, 'secret.md'), 'OUTSIDE-SECRET\n');
    writeFiles(home, { '.ssh/key.md': 'HOME-SECRET\n' });
    const repo = makeRepo({ 'CLAUDE.md': `@${path.join(outside, 'secret.md')}\n@~/.ssh/key.md\n@link.md\n` });
    symlinkSync(path.join(outside, 'secret.md'), path.join(repo, 'link.md'));
    const { all, skipped } = texts(repo, home);
    expect(all).not.toContain('OUTSIDE-SECRET');
    expect(all).not.toContain('HOME-SECRET');
    // The absolute path, the ~/ path and the symlink leading outside: each refused.
    expect(skipped.filter((line) => line.includes('from outside the project'))).toHaveLength(3);
  });

  it('sends the instructions as one context message before the task prompt, never in the system prompt', async () => {
    const home = tempDir('orca-home-');
    writeFiles(home, { '.claude/CLAUDE.md': 'USER-LEVEL-NOTE\n' });
    const repo = makeRepo({
      'CLAUDE.md': 'ROOT-NOTE <!-- NOT-SENT --> @extra.md\n',
      'extra.md': 'IMPORTED-NOTE\n',
      'sub/AGENTS.md': 'SUB-NOTE\n',
    });
    mkdirSync(path.join(repo, 'sub'), { recursive: true });
    const { model } = await runScripted({
      root: path.join(repo, 'sub'),
      turns: [REPORT_TURN],
      context: createContextAssembler({ homeDir: home }),
      prompt: 'THE-TASK',
    });
    const request = model.requests[0]!;
    const first = request.messages[0]!;
    expect(first.role).toBe('user');
    const [context, task] = first.content;
    expect(context?.type === 'text' && context.text).toMatch(/USER-LEVEL-NOTE[\s\S]*ROOT-NOTE[\s\S]*IMPORTED-NOTE[\s\S]*SUB-NOTE/);
    expect(task?.type === 'text' && task.text).toBe('THE-TASK');
    expect(messagesText(request)).not.toContain('NOT-SENT');
    expect(request.system.map((block) => block.text).join('\n')).not.toMatch(/ROOT-NOTE|USER-LEVEL-NOTE|SUB-NOTE/);
    expect(messagesText(request).match(/ROOT-NOTE/g)).toHaveLength(1);
  });
});
