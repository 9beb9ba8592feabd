import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinRole } from '../../roles/builtinRoles.js';
import { loadCustomRoles } from '../../roles/customRoles.js';
import { availableRoles, findRole } from '../../roles/roleCatalog.js';
import { readTrustedConfig } from '../../shared/context/config/readTrustedConfig.js';
import { toolsNamed } from '../../shared/tools/catalog.js';
import { git, makeRepo, writeFiles } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';
import { dumped, dumpHook, runClaudeCodeProject, WORKER_REPORT } from './harnessKit.js';

const TOOLS = toolsNamed(['Read', 'Edit', 'Write', 'NotebookEdit', 'Glob', 'Grep', 'LSP', 'Bash', 'Skill']);

/** An agent file as Claude Code's published agents are written: a description strict YAML refuses. */
const EXAMPLES_AGENT = [
  '---',
  'name: test-writer',
  'description: Use this agent when the user asks for tests. Examples:',
  '',
  '<example>',
  'Context: The user has just written a parser',
  'user: "Add tests for the parser"',
  'assistant: "I\'ll use the test-writer agent."',
  '<commentary>',
  'Tests were asked for: use this agent.',
  '</commentary>',
  '</example>',
  'model: inherit',
  'color: green',
  'tools: ["Read", "Write", "Grep"]',
  '---',
  '',
  'You write focused unit tests.',
].join('\n');

/** One line with `\n` escapes and `: ` inside, as agent collections publish them. */
const ESCAPED_AGENT = [
  '---',
  'name: reviewer',
  'description: Reviews code. Examples:\\n\\n<example>\\nContext: a PR is open\\nuser: review it\\n</example>',
  'tools: Read, Grep',
  '---',
  'You review code.',
].join('\n');

describe("agent files as Claude Code's are published", () => {
  it('reads a description strict YAML refuses, and agents in subfolders', () => {
    const repo = tempDir();
    writeFiles(repo, {
      '.claude/agents/testing/test-writer.md': EXAMPLES_AGENT,
      '.claude/agents/review/deep/reviewer.md': ESCAPED_AGENT,
    });
    const { roles, warnings } = loadCustomRoles(repo, TOOLS);
    expect(warnings).toEqual([]);
    const writer = roles.find((role) => role.name === 'test-writer')!;
    expect(writer.description).toContain('Context: The user has just written a parser');
    expect(writer.description).toContain('<commentary>');
    expect(writer.tools).toEqual(['Read', 'Write', 'Grep']);
    expect(writer.prompt).toBe('You write focused unit tests.');
    const reviewer = roles.find((role) => role.name === 'reviewer')!;
    expect(reviewer.description).toBe('Reviews code. Examples:\n\n<example>\nContext: a PR is open\nuser: review it\n</example>');
    expect(reviewer.source).toBe(path.join(repo, '.claude/agents/review/deep/reviewer.md'));
  });

  it('names every field orca does not honour, once, and loads the role without it', () => {
    const repo = tempDir();
    writeFiles(repo, {
      '.claude/agents/helper.md': [
        '---',
        'name: helper',
        'description: Helps.',
        'tools: Read, Edit',
        'skills: [commit]',
        'mcpServers: [github]',
        'memory: project',
        'background: true',
        'initialPrompt: Start here',
        'hooks:',
        '  PreToolUse: []',
        'isolation: worktree',
        'color: blue',
        'effort: high',
        '---',
        'Help.',
      ].join('\n'),
    });
    const { roles, warnings } = loadCustomRoles(repo, TOOLS);
    expect(roles.map((role) => role.name)).toEqual(['helper']);
    expect(roles[0]).toMatchObject({ effort: 'high', workspace: 'branch' });
    const named = warnings.map((warning) => /helper\.md: (\w+): not supported by orca/.exec(warning)?.[1]);
    expect(named.sort()).toEqual(['background', 'hooks', 'initialPrompt', 'memory', 'skills']);
    // mcpServers is orca's too (docs/mcp.md): kept on the role.
    expect(roles[0]!.mcpServers).toEqual(['github']);
  });

  it('a file that still cannot be read is named with the reason, and asking for its role says why it was skipped', () => {
    const repo = tempDir();
    writeFiles(repo, { '.claude/agents/broken.md': '---\nname: broken\ndescription: x\nmaxTurns: many\n---\nDo it.' });
    const { warnings } = loadCustomRoles(repo, TOOLS);
    expect(warnings).toEqual([expect.stringMatching(/broken\.md: skipped, its front matter is invalid: maxTurns/)]);
    expect(() => findRole(repo, 'broken')).toThrow(
      /role "broken" is not available: .*broken\.md was skipped: its front matter is invalid: maxTurns/,
    );
  });

  it('a file without permissionMode runs in the mode of the run; one with it keeps its Claude Code name', () => {
    const repo = tempDir();
    writeFiles(repo, {
      '.claude/agents/a.md': '---\nname: a\ndescription: x\ntools: Read, Edit, Bash\n---\nDo it.',
      '.claude/agents/b.md': '---\nname: b\ndescription: x\ntools: Read, Grep\n---\nLook.',
      '.claude/agents/c.md': '---\nname: c\ndescription: x\ntools: Read, Edit\npermissionMode: acceptEdits\n---\nDo it.',
    });
    const { roles } = loadCustomRoles(repo, TOOLS);
    const byName = Object.fromEntries(roles.map((role) => [role.name, role]));
    expect(byName.a).toMatchObject({ mode: 'full-access' });
    expect(byName.a!.claudeMode).toBeUndefined();
    expect(byName.b).toMatchObject({ mode: 'read-only' });
    expect(byName.c).toMatchObject({ mode: 'workspace-write', claudeMode: 'acceptEdits' });
  });
});

describe('agent files from the trusted configuration', () => {
  it('reads subfolders at the base commit through the same reader: lenient front matter, skipped-file reasons; the checkout is not read', async () => {
    const repo = makeRepo({
      '.claude/agents/writers/test-writer.md': EXAMPLES_AGENT,
      '.claude/agents/broken.md': '---\nname: broken\ndescription: x\nmaxTurns: many\n---\nDo it.',
    });
    const base = git(repo, 'rev-parse', 'HEAD');
    // Written after the base commit: an agent's tree, not the run's configuration.
    writeFiles(repo, { '.claude/agents/later.md': '---\nname: later\ndescription: x\n---\nDo it.' });
    const home = tempDir();
    const config = await readTrustedConfig({ project: { repo, commit: base }, userClaudeDir: path.join(home, '.claude'), homeDir: home });
    const { roles, warnings } = availableRoles(repo, { config });
    const writer = roles.find((role) => role.name === 'test-writer');
    expect(writer).toMatchObject({ source: path.join(repo, '.claude/agents/writers/test-writer.md'), tools: ['Read', 'Write', 'Grep'] });
    expect(roles.some((role) => role.name === 'later')).toBe(false);
    expect(warnings).toContainEqual(expect.stringMatching(/broken\.md: skipped, its front matter is invalid: maxTurns/));
    expect(() => findRole(repo, 'broken', { config })).toThrow(/role "broken" is not available: .*broken\.md was skipped/);
    expect(findRole(repo, 'later').role.name).toBe('later');
  });
});

describe("an agent file's permissionMode in hook input", () => {
  it('is permission_mode, by the name the file gave', async () => {
    const dump = path.join(tempDir('orca-dump-'), 'hooks.jsonl');
    const worker = builtinRole('worker')!;
    await runClaudeCodeProject({
      files: { '.claude/settings.json': JSON.stringify({ hooks: { Stop: [dumpHook(dump)] } }) },
      turns: [{ tools: [{ name: 'Report', input: WORKER_REPORT }] }],
      extra: { role: { ...worker, mode: 'workspace-write', sandbox: false, claudeMode: 'default' } },
    });
    expect(dumped(dump).map((input) => input.permission_mode)).toEqual(['default']);
  });
});
