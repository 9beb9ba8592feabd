import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SkillGrants } from '../../shared/context/instructions/skillGrants.js';
import { discoverSkills, splitToolList } from '../../shared/context/instructions/skills.js';
import { createContextAssembler } from '../../shared/context/prompt/assembler.js';
import { makeRepo, writeFiles } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';
import { bash, messagesText, REPORT_TURN, runScripted } from './scriptedSession.js';

const RELEASE = [
  '---',
  'name: release',
  'description: Cut a release of this package (version bump, changelog, tag).',
  'allowed-tools: Bash(git tag:*), Read',
  '---',
  '# Release',
  'RELEASE-BODY-SECRET-STEP: bump the version in package.json first.',
].join('\n');

describe('skills', () => {
  it('lists name and description up front; the body arrives only when Skill loads it', async () => {
    const home = tempDir('orca-home-');
    writeFiles(home, { '.claude/skills/notes/SKILL.md': '---\ndescription: Keep personal notes tidy.\n---\nUSER-SKILL-BODY\n' });
    const repo = makeRepo({ '.claude/skills/release/SKILL.md': RELEASE });
    const grantsSeen: Array<{ turn: number; rules: string[] }> = [];
    const { model, result, events } = await runScripted({
      root: repo,
      turns: [
        bash('echo before'),
        { tools: [{ name: 'Skill', input: { skill: 'release' } }] },
        bash('echo after'),
        bash('echo later'),
        REPORT_TURN,
      ],
      context: createContextAssembler({ homeDir: home }),
      onEvent: (event, session) => {
        if (event.type !== 'tool_call') return;
        const grants = session.toolContext.services.skillGrants!;
        grantsSeen.push({ turn: event.turn, rules: grants.allowRules() });
      },
    });
    expect(result.reason).toBe('report');
    const requests = model.requests;
    const listing = messagesText(requests[0]!);
    expect(listing).toContain('- release: Cut a release of this package (version bump, changelog, tag).');
    expect(listing).toContain('- notes: Keep personal notes tidy.');
    // Lazy: no request before the Skill call carries the body; the one after it does.
    expect(messagesText(requests[0]!)).not.toContain('RELEASE-BODY-SECRET-STEP');
    expect(messagesText(requests[1]!)).not.toContain('RELEASE-BODY-SECRET-STEP');
    expect(messagesText(requests[2]!)).toContain('RELEASE-BODY-SECRET-STEP');
    expect(requests.every((request) => !messagesText(request).includes('USER-SKILL-BODY'))).toBe(true);
    expect(requests.every((request) => !request.system.some((block) => block.text.includes('RELEASE-BODY')))).toBe(true);
    expect(events.some((event) => event.type === 'tool_result' && event.name === 'Skill' && !event.is_error)).toBe(true);

    // allowed-tools: granted in the turn that loaded the skill and the next, not after.
    const byTurn = new Map(grantsSeen.map((seen) => [seen.turn, seen.rules]));
    expect(byTurn.get(1)).toEqual([]);
    expect(byTurn.get(2)).toEqual([]); // checked before the Skill call ran
    expect(byTurn.get(3)).toEqual(['Bash(git tag:*)', 'Read']);
    expect(byTurn.get(4)).toEqual([]);
  });

  it('refuses an unknown skill with the names it knows', async () => {
    const repo = makeRepo({ '.claude/skills/release/SKILL.md': RELEASE });
    const { session } = await runScripted({
      root: repo,
      turns: [{ tools: [{ name: 'Skill', input: { skill: 'deploy' } }] }, REPORT_TURN],
      context: createContextAssembler({ homeDir: tempDir('orca-home-') }),
    });
    const result = session.messages[2]!.content[0]!;
    expect(result.type === 'tool_result' && result.is_error).toBe(true);
    expect(result.type === 'tool_result' && result.content).toBe('There is no skill named "deploy". The skills you can load are: release.');
  });

  it('grants last from the loading turn through the next one', () => {
    const grants = new SkillGrants();
    grants.beginTurn(4);
    grants.grant('release', ['Bash(git tag:*)']);
    expect(grants.allowRules()).toEqual(['Bash(git tag:*)']);
    grants.beginTurn(5);
    expect(grants.activeGrants().map((grant) => grant.skill)).toEqual(['release']);
    grants.beginTurn(6);
    expect(grants.allowRules()).toEqual([]);
  });

  it('reads allowed-tools lists and skips skills only the user may start', () => {
    expect(splitToolList('Bash(git add:*), Read Grep,Edit(src/**)')).toEqual(['Bash(git add:*)', 'Read', 'Grep', 'Edit(src/**)']);
    const repo = makeRepo({
      '.claude/skills/a/SKILL.md': '---\ndescription: A\nallowed-tools:\n  - Read\n  - Bash(npm test:*)\n---\nbody\n',
      '.claude/skills/manual/SKILL.md': '---\ndescription: only by hand\ndisable-model-invocation: true\n---\nbody\n',
      '.claude/skills/broken/SKILL.md': '---\nname: "bad name!"\n---\nbody\n',
      'pkg/.claude/skills/a/SKILL.md': '---\ndescription: nearer A\n---\nbody\n',
    });
    const found = discoverSkills({ projectDirs: [repo, path.join(repo, 'pkg')], homeDir: tempDir('orca-home-') });
    expect(found.skills.map((skill) => `${skill.name}:${skill.description}`)).toEqual(['a:nearer A']);
    const top = discoverSkills({ projectDirs: [repo], homeDir: tempDir('orca-home-') });
    expect(top.skills.map((skill) => [skill.name, skill.allowedTools])).toEqual([['a', ['Read', 'Bash(npm test:*)']]]);
    expect(top.problems.join('\n')).toContain('broken/SKILL.md');
    expect(top.problems.join('\n')).toContain('name: letters, digits');
  });
});
