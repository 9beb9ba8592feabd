import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeConfigFolders } from '../../shared/context/config/configFolders.js';
import { readTrustedConfig } from '../../shared/context/config/readTrustedConfig.js';
import { settingsFromConfig } from '../../shared/context/config/trustedSettings.js';
import { createContextAssembler } from '../../shared/context/prompt/assembler.js';
import { TrustedConfigSchema } from '../../shared/infra/queue/trustedConfig.js';
import { git, makeRepo, writeFiles } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';
import { messagesText, REPORT_TURN, read, runScripted } from './scriptedSession.js';

const AT_BASE = {
  'CLAUDE.md': 'Base instructions. See @docs/style.md\n',
  'docs/style.md': 'Base style guide.\n',
  '.claude/settings.json': JSON.stringify({ permissions: { deny: ['Bash(rm:*)'] } }),
  '.claude/rules/always.md': 'Base rule for every file.\n',
  '.claude/rules/ts.md': '---\npaths: src/**/*.ts\n---\nBase rule for TypeScript.\n',
  '.claude/skills/deploy/SKILL.md': '---\ndescription: Base deploy skill.\n---\nBase deploy steps.\n',
  '.claude/agents/helper.md': '---\nname: helper\ndescription: Helps.\n---\nHelp.\n',
  'src/a.ts': 'export const a = 1;\n',
};

/** What an agent (or anyone) changes in the tree after the base commit. */
const PLANTED = {
  'CLAUDE.md': 'Planted instructions.\n',
  '.claude/settings.json': JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: 'true' }] }] } }),
  '.claude/rules/planted.md': 'Planted rule.\n',
  '.claude/skills/deploy/SKILL.md': '---\ndescription: Planted deploy skill.\n---\nPlanted deploy steps.\n',
};

/** A file of the user's outside their home, which their own CLAUDE.md imports. */
const outsideHome = () => {
  const file = path.join(tempDir('orca-elsewhere-'), 'elsewhere.md');
  writeFileSync(file, 'Elsewhere.\n');
  return file;
};

function userHome(elsewhere = outsideHome()): string {
  const home = tempDir('orca-home-');
  mkdirSync(path.join(home, '.claude', 'rules'), { recursive: true });
  writeFileSync(path.join(home, '.claude', 'CLAUDE.md'), `User instructions. @~/notes.md @${elsewhere}\n`);
  writeFileSync(path.join(home, 'notes.md'), 'User notes.\n');
  writeFileSync(path.join(home, '.claude', 'rules', 'mine.md'), 'User rule.\n');
  return home;
}

describe('the trusted configuration', () => {
  it('holds the base commit’s files and the user’s, never a later change to the tree', async () => {
    const repo = makeRepo(AT_BASE);
    const base = git(repo, 'rev-parse', 'HEAD');
    writeFiles(repo, PLANTED);
    const elsewhere = outsideHome();
    const home = userHome(elsewhere);
    const config = TrustedConfigSchema.parse(
      await readTrustedConfig({ project: { repo, commit: base }, userClaudeDir: path.join(home, '.claude'), homeDir: home }),
    );
    expect(config.commit).toBe(base);
    expect(config.project.map((file) => file.path)).toEqual([
      '.claude/agents/helper.md',
      '.claude/rules/always.md',
      '.claude/rules/ts.md',
      '.claude/settings.json',
      '.claude/skills/deploy/SKILL.md',
      'CLAUDE.md',
      'docs/style.md',
    ]);
    expect(JSON.stringify(config)).not.toContain('Planted');
    expect(config.home.files.map((file) => file.path)).toEqual(['.claude/CLAUDE.md', '.claude/rules/mine.md', 'notes.md']);
    expect(config.problems).toEqual([`${elsewhere}: left out, imported by ~/.claude/CLAUDE.md from outside the home folder`]);
    // The settings are the base commit's: its deny rule, not the planted hook.
    const settings = settingsFromConfig(repo, config);
    expect(settings.sources.map((source) => [source.label, source.settings.permissions?.deny])).toEqual([
      ['.claude/settings.json', ['Bash(rm:*)']],
    ]);
  });

  it('gives a session the base commit’s instructions, rules and skills, named as in its workspace', async () => {
    const repo = makeRepo(AT_BASE);
    const base = git(repo, 'rev-parse', 'HEAD');
    writeFiles(repo, PLANTED);
    const home = userHome();
    const config = await readTrustedConfig({ project: { repo, commit: base }, userClaudeDir: path.join(home, '.claude'), homeDir: home });
    const folders = writeConfigFolders(config, path.join(tempDir(), 'config'));
    const { model, result } = await runScripted({
      root: repo,
      turns: [read('src/a.ts'), { tools: [{ name: 'Skill', input: { skill: 'deploy' } }] }, REPORT_TURN],
      context: createContextAssembler({ homeDir: home, config: { ...folders, shownHome: home } }),
    });
    expect(result.reason).toBe('report');
    const first = messagesText(model.requests[0]!);
    for (const text of [
      'Base instructions.',
      'Base style guide.',
      'Base rule for every file.',
      'User instructions.',
      'User notes.',
      'User rule.',
    ]) {
      expect(first).toContain(text);
    }
    expect(first).toContain(`Contents of ${path.join(repo, 'CLAUDE.md')}`);
    expect(first).toContain('Base deploy skill.');
    expect(first).not.toContain('Base rule for TypeScript.');
    const last = messagesText(model.requests.at(-1)!);
    expect(last).toContain(`Rule from ${path.join(repo, '.claude', 'rules', 'ts.md')}`);
    expect(last).toContain('Base rule for TypeScript.');
    expect(last).toContain(`Skill "deploy" (${path.join(repo, '.claude', 'skills', 'deploy', 'SKILL.md')})`);
    expect(last).toContain('Base deploy steps.');
    expect(model.requests.map(messagesText).join('\n')).not.toContain('Planted');
  });

  it('holds the user’s local files from their checkout (gitignored, never committed), which win over committed copies', async () => {
    const repo = makeRepo({ ...AT_BASE, '.gitignore': '.claude/settings.local.json\nCLAUDE.local.md\n' });
    const base = git(repo, 'rev-parse', 'HEAD');
    writeFiles(repo, {
      '.claude/settings.local.json': JSON.stringify({ permissions: { deny: ['Bash(curl:*)'] } }),
      'CLAUDE.local.md': 'My local notes for this project.\n',
    });
    const home = userHome();
    const config = await readTrustedConfig({ project: { repo, commit: base }, userClaudeDir: path.join(home, '.claude'), homeDir: home });
    expect(config.local.map((file) => file.path)).toEqual(['.claude/settings.local.json', 'CLAUDE.local.md']);
    // The local scope comes first, as in Claude Code, and the committed settings still apply.
    const settings = settingsFromConfig(repo, config);
    expect(settings.sources.map((source) => [source.label, source.settings.permissions?.deny])).toEqual([
      ['.claude/settings.local.json', ['Bash(curl:*)']],
      ['.claude/settings.json', ['Bash(rm:*)']],
    ]);
    // A session of the run reads the local instructions, from the copy the configuration carries.
    const folders = writeConfigFolders(config, path.join(tempDir(), 'config'));
    const { model, result } = await runScripted({
      root: repo,
      turns: [REPORT_TURN],
      context: createContextAssembler({ homeDir: home, config: { ...folders, shownHome: home } }),
    });
    expect(result.reason).toBe('report');
    expect(messagesText(model.requests[0]!)).toContain('My local notes for this project.');
  });
});
