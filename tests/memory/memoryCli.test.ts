import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compiledEntry, packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { makeRepo } from '../support/gitRepo.js';
import { OrcaTestEnv } from '../support/orcaEnv.js';

/** `orca ARGS` with `input` on stdin (the review's answers). */
async function withStdin(env: OrcaTestEnv, args: string[], input: string, extra: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, [compiledEntry('coordinator/cli.ts'), ...args], {
    cwd: packageRoot(),
    env: env.processEnv(extra),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(input);
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

describe('orca memory', () => {
  it('adds, lists, shows and removes cards; refuses what the rules refuse with one line and exit 2', async () => {
    const env = await OrcaTestEnv.open();
    const repo = makeRepo();
    const add = (...args: string[]) => env.cli(['memory', 'add', '--repo', repo, ...args]);

    const refused = await add('--type', 'project', '--title', 'Release freeze', '--description', 'The freeze starts tomorrow.');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /^orca: not remembered: "tomorrow" is a relative date: as of \d{4}-\d{2}-\d{2} it is \d{4}-\d{2}-\d{2}; write/,
    );
    expect(refused.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    const fifth = await add('--type', 'fact', '--title', 'x', '--description', 'y');
    expect(fifth.code).toBe(2);
    expect(fifth.stderr).toBe('orca: not remembered: type "fact" is not a kind of memory: use one of user, feedback, project, reference\n');

    const freeze = await add(
      '--type',
      'project',
      '--title',
      'Release freeze from 2026-12-18',
      '--description',
      'No merges to main from 2026-12-18.',
    );
    expect(freeze.code, freeze.stderr).toBe(0);
    const id = /^remembered (mem_[0-9a-f]{8}) "Release freeze from 2026-12-18" \(project:\/\S+\)$/.exec(freeze.stdout.trim())![1]!;
    const user = await add('--type', 'user', '--title', 'Uses Neovim', '--description', 'Edits in Neovim with LSP.');
    expect(user.stdout).toContain('(user)');

    const list = await env.cli(['memory', 'list', '--repo', repo]);
    expect(list.code).toBe(0);
    expect(list.stdout.split('\n').filter(Boolean)).toHaveLength(2);
    expect(list.stdout).toContain(`${id}\tproject\tproject:`);
    const onlyUser = JSON.parse((await env.cli(['memory', 'list', '--scope', 'user', '--json'])).stdout) as {
      cards: Array<{ title: string }>;
    };
    expect(onlyUser.cards.map((card) => card.title)).toEqual(['Uses Neovim']);
    const badScope = await env.cli(['memory', 'list', '--scope', 'team']);
    expect(badScope.code).toBe(2);

    const show = await env.cli(['memory', 'show', id]);
    expect(show.stdout).toContain(path.join(env.home, 'memory', 'projects'));
    expect(show.stdout).toContain(`id: ${id}\ntype: project\ntitle: "Release freeze from 2026-12-18"`);

    const rm = await env.cli(['memory', 'rm', id]);
    expect(rm.code).toBe(0);
    const again = await env.cli(['memory', 'rm', id]);
    expect(again.code).toBe(2);
    expect(again.stderr).toBe(`orca: there is no card ${id}: orca memory list shows the cards.\n`);
  });

  it('reviews a contradiction: keep the old, take the new, or edit it', async () => {
    const env = await OrcaTestEnv.open();
    const repo = makeRepo();
    const add = (title: string, description: string) =>
      env.cli(['memory', 'add', '--repo', repo, '--type', 'project', '--title', title, '--description', description]);
    const kept = await add('Release freeze from 2026-12-18', 'No merges to main from 2026-12-18.');
    const keptId = /(mem_[0-9a-f]{8})/.exec(kept.stdout)![1]!;
    const moved = await add('Release freeze from 2027-01-10', 'No merges to main from 2027-01-10.');
    expect(moved.code).toBe(0);
    expect(moved.stdout).toContain(`queued for review: "Release freeze from 2027-01-10" contradicts ${keptId}`);
    expect((await env.cli(['memory', 'list', '--repo', repo])).stdout).toContain('1 card(s) wait for review: orca memory review');

    // Answered "k": the kept card stays, the proposal goes.
    const keep = await withStdin(env, ['memory', 'review'], 'k\n');
    expect(keep.code, keep.stderr).toBe(0);
    expect(keep.stdout).toContain(`contradicts ${keptId}: it says "2027-01-10" where ${keptId} says "2026-12-18"`);
    expect(keep.stdout).toContain(`kept ${keptId};`);
    expect((await withStdin(env, ['memory', 'review'], '')).stdout).toBe('nothing to review\n');

    // Answered "t": the new card replaces the old one, under the old id.
    await add('Release freeze from 2027-01-10', 'No merges to main from 2027-01-10.');
    const take = await withStdin(env, ['memory', 'review'], 't\n');
    expect(take.stdout).toContain(`${keptId} now says: Release freeze from 2027-01-10: No merges to main from 2027-01-10.`);
    const after = await env.cli(['memory', 'show', keptId]);
    expect(after.stdout).toContain('title: "Release freeze from 2027-01-10"');

    // Edited in $EDITOR (here a script that rewrites the description), then admitted by the same rules.
    await add('Release freeze from 2027-02-01', 'No merges to main from 2027-02-01.');
    const editor = path.join(env.dir('bin'), 'editor.sh');
    writeFileSync(
      editor,
      `#!/bin/sh\nsed -i 's/No merges to main from 2027-02-01./Only hotfixes on main from 2027-02-01 to 2027-02-14./' "$1"\n`,
      { mode: 0o755 },
    );
    const pendingId = readdirSync(path.join(env.home, 'memory', 'pending'))[0]!.replace(/\.md$/, '');
    const edit = await env.cli(['memory', 'review', '--edit', pendingId], { env: { EDITOR: editor, VISUAL: '' } });
    expect(edit.code, edit.stderr).toBe(0);
    expect(edit.stdout).toContain(
      `${keptId} now says: Release freeze from 2027-02-01: Only hotfixes on main from 2027-02-01 to 2027-02-14.`,
    );
    expect(existsSync(path.join(env.home, 'memory', 'pending', `${pendingId}.md`))).toBe(false);
    const cards = JSON.parse((await env.cli(['memory', 'list', '--json', '--repo', repo])).stdout) as { cards: unknown[]; pending: number };
    expect(cards.cards).toHaveLength(1);
    expect(cards.pending).toBe(0);
  });

  it('through npm run orca, files a project card for the folder the user ran it from (INIT_CWD), not for orca', async () => {
    const env = await OrcaTestEnv.open();
    const repo = makeRepo();
    // npm runs the script in orca's package folder and says where the user was in INIT_CWD.
    const child = spawn(
      'npm',
      [
        '--silent',
        '--prefix',
        packageRoot(),
        'run',
        'orca',
        '--',
        'memory',
        'add',
        '--type',
        'project',
        '--title',
        'Build tool',
        '--description',
        'The project builds with make.',
      ],
      {
        cwd: repo,
        env: env.processEnv({ INIT_CWD: undefined }),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const [code] = (await once(child, 'close')) as [number | null];
    expect(code, output).toBe(0);
    expect(output).toMatch(/^remembered mem_\w+ "Build tool" \(project:/);

    const here = await env.cli(['memory', 'list', '--scope', 'project', '--json', '--repo', repo]);
    expect(JSON.parse(here.stdout).cards.map((card: { title: string }) => card.title)).toEqual(['Build tool']);
    const orcas = await env.cli(['memory', 'list', '--scope', 'project', '--json', '--repo', packageRoot()]);
    expect(JSON.parse(orcas.stdout).cards).toEqual([]);
  });
});
