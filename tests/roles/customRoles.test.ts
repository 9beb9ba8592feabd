import { describe, expect, it } from 'vitest';
import { loadCustomRoles } from '../../roles/customRoles.js';
import { findRole } from '../../roles/roleCatalog.js';
import { toolsNamed } from '../../shared/tools/catalog.js';
import { writeFiles } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';

const TOOLS = toolsNamed([
  'Read',
  'Edit',
  'Write',
  'NotebookEdit',
  'Glob',
  'Grep',
  'LSP',
  'Bash',
  'Skill',
  'TaskCreate',
  'TaskUpdate',
  'TaskList',
]);

describe('custom roles from .claude/agents/*.md', () => {
  it("reads Claude Code's format: tools as a comma list, model alias, permission mode, max turns", () => {
    const repo = tempDir();
    writeFiles(repo, {
      '.claude/agents/reviewer.md': [
        '---',
        'name: reviewer',
        'description: Reviews a diff for security problems.',
        'tools: Read, Grep, Glob, WebFetch',
        'model: haiku',
        'permissionMode: plan',
        'maxTurns: 7',
        '---',
        'You review code for security problems. Report findings with path:line.',
      ].join('\n'),
      '.claude/agents/fixer.md': [
        '---',
        'name: fixer',
        'description: Fixes lint errors.',
        'tools:',
        '  - Read',
        '  - Edit',
        '  - Bash',
        'disallowedTools: Bash',
        '---',
        'Fix the lint errors you are given.',
      ].join('\n'),
    });
    const { roles, warnings } = loadCustomRoles(repo, TOOLS);
    const reviewer = roles.find((r) => r.name === 'reviewer')!;
    expect(reviewer).toMatchObject({
      tools: ['Read', 'Grep', 'Glob'],
      mode: 'read-only',
      model: 'claude-haiku-5-5',
      limits: { maxTurns: 7 },
      workspace: 'view',
      output: 'explore',
    });
    expect(reviewer.prompt).toContain('security problems');
    expect(warnings).toEqual([expect.stringMatching(/reviewer\.md: tools orca does not have were left out: WebFetch/)]);
    const fixer = roles.find((r) => r.name === 'fixer')!;
    // No permissionMode: the mode of the run's agents, as in Claude Code (a subagent inherits it).
    expect(fixer).toMatchObject({ tools: ['Read', 'Edit'], mode: 'full-access', workspace: 'branch', output: 'worker' });
  });

  it("reads a role's MCP servers: configured names and inline definitions, as a list or a map", () => {
    const repo = tempDir();
    writeFiles(repo, {
      '.claude/agents/triager.md': [
        '---',
        'name: triager',
        'description: Files issues.',
        'tools: Read',
        'mcpServers:',
        '  - github',
        '  - tracker:',
        '      type: http',
        '      url: https://tracker.example.com/mcp',
        '---',
        'File the issues you are given.',
      ].join('\n'),
      '.claude/agents/mapped.md': [
        '---',
        'name: mapped',
        'description: Uses a map.',
        'mcpServers:',
        '  db:',
        '    command: db-server',
        '---',
        'Query.',
      ].join('\n'),
      '.claude/agents/plain.md': '---\nname: plain\ndescription: none\n---\nNo servers.',
    });
    const { roles, warnings } = loadCustomRoles(repo, TOOLS);
    expect(warnings).toEqual([]);
    expect(roles.find((r) => r.name === 'triager')!.mcpServers).toEqual([
      'github',
      { tracker: { type: 'http', url: 'https://tracker.example.com/mcp' } },
    ]);
    expect(roles.find((r) => r.name === 'mapped')!.mcpServers).toEqual([{ db: { command: 'db-server' } }]);
    expect(roles.find((r) => r.name === 'plain')!.mcpServers).toEqual([]);
  });

  it('skips a malformed file with a warning naming it, and keeps the others', () => {
    const repo = tempDir();
    writeFiles(repo, {
      '.claude/agents/bad-yaml.md': '---\nname: [unclosed\n---\nbody',
      '.claude/agents/no-desc.md': '---\nname: nodesc\n---\nbody',
      '.claude/agents/worker.md': '---\nname: worker\ndescription: shadows a builtin\n---\nbody',
      '.claude/agents/good.md': '---\nname: good\ndescription: fine\n---\nDo good work.',
    });
    const { roles, warnings } = loadCustomRoles(repo, TOOLS);
    expect(roles.map((r) => r.name)).toEqual(['good']);
    expect(warnings.some((w) => w.includes('bad-yaml.md: skipped'))).toBe(true);
    expect(warnings.some((w) => w.includes('no-desc.md: skipped') && w.includes('description'))).toBe(true);
    expect(warnings.some((w) => w.includes('worker.md: skipped, a role named worker already exists'))).toBe(true);
  });

  it('finds built-in and custom roles by name, and names the choices for an unknown one', () => {
    const repo = tempDir();
    writeFiles(repo, { '.claude/agents/good.md': '---\nname: good\ndescription: fine\n---\nDo good work.' });
    expect(findRole(repo, 'explore').role.mode).toBe('read-only');
    expect(findRole(repo, 'good').role.source).toMatch(/good\.md$/);
    expect(() => findRole(repo, 'nope')).toThrow(
      /unknown role "nope": the roles are coordinator, explore, plan, worker, verification, good/,
    );
  });

  it("reads orca's own thinking and effort fields, and skips a file whose thinking setting is not one", () => {
    const repo = tempDir();
    writeFiles(repo, {
      '.claude/agents/deep.md': '---\nname: deep\ndescription: Thinks hard.\nthinking: enabled:8000\neffort: xhigh\n---\nThink.\n',
      '.claude/agents/odd.md': '---\nname: odd\ndescription: Odd.\nthinking: sometimes\n---\nHm.\n',
      '.claude/agents/lazy.md': '---\nname: lazy\ndescription: Lazy.\neffort: none\n---\nHm.\n',
    });
    const { roles, warnings } = loadCustomRoles(repo, TOOLS);
    expect(roles.map((role) => [role.name, role.thinking, role.effort])).toEqual([['deep', 'enabled:8000', 'xhigh']]);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/lazy\.md: skipped, .*effort/);
    expect(warnings[1]).toMatch(/odd\.md: skipped, .*"sometimes" is not a thinking setting: use adaptive, enabled:<budget>/);
  });
});
