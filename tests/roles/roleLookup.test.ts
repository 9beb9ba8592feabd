import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findRole } from '../../roles/roleCatalog.js';
import { findRoleLoadingTools } from '../../roles/roleLookup.js';
import { roleSet } from '../../roles/roleSet.js';
import { readTrustedConfig } from '../../shared/context/config/readTrustedConfig.js';
import { git, makeRepo } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';

async function configAt(repo: string) {
  const home = tempDir();
  return readTrustedConfig({
    project: { repo, commit: git(repo, 'rev-parse', 'HEAD') },
    userClaudeDir: path.join(home, '.claude'),
    homeDir: home,
  });
}

const noTools = () => {
  throw new Error('the tools were asked for');
};

describe('a role found without the tools loaded (roleLookup.ts)', () => {
  it('never asks for the tools when the repository has no agent file', async () => {
    const repo = makeRepo({ 'README.md': '# x\n' });
    const config = await configAt(repo);
    expect(roleSet(repo, { config }, noTools).roles.map((role) => role.name)).toContain('worker');
    expect((await findRoleLoadingTools(repo, 'worker', { config })).role).toEqual(findRole(repo, 'worker', { config }).role);
  });

  it('asks for them for an agent file, and finds what findRole finds: the custom role its mode from its tools, the same warnings', async () => {
    const repo = makeRepo({
      '.claude/agents/writer.md': '---\nname: writer\ndescription: x\ntools: Read, Edit, Nope\n---\nWrite it.',
      '.claude/agents/reader.md': '---\nname: reader\ndescription: x\ntools: Read, Grep\n---\nRead it.',
    });
    const config = await configAt(repo);
    expect(() => roleSet(repo, { config }, noTools)).toThrow('the tools were asked for');
    for (const name of ['writer', 'reader', 'worker']) {
      const found = await findRoleLoadingTools(repo, name, { config });
      expect(found).toEqual(findRole(repo, name, { config }));
    }
    const writer = await findRoleLoadingTools(repo, 'writer', { config });
    expect(writer.role).toMatchObject({ tools: ['Read', 'Edit'], mode: 'full-access', workspace: 'branch' });
    expect(writer.warnings).toContainEqual(expect.stringMatching(/writer\.md: tools orca does not have were left out: Nope/));
    expect((await findRoleLoadingTools(repo, 'reader', { config })).role).toMatchObject({ mode: 'read-only', workspace: 'view' });
  });

  it('names the roles there are for an unknown one, as findRole does', async () => {
    const repo = makeRepo({ 'README.md': '# x\n' });
    const config = await configAt(repo);
    await expect(findRoleLoadingTools(repo, 'nope', { config })).rejects.toThrow(/unknown role "nope": the roles are coordinator, /);
  });
});
