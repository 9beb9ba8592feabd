import { describe, expect, it } from 'vitest';
import { pathPatternMatches } from '../../shared/policy/permissions/pathPattern.js';
import { isBroken, parseRule, ruleLabel } from '../../shared/policy/permissions/rule.js';
import { commandPatternMatches, ruleAppliesTo } from '../../shared/policy/permissions/ruleMatch.js';
import { toolNamed } from '../support/toolNamed.js';

describe('parsing rules', () => {
  it('reads a bare tool and a tool with a specifier', () => {
    expect(parseRule('Bash', 'allow', 's.json')).toEqual({ behavior: 'allow', tool: 'Bash', text: 'Bash', source: 's.json' });
    expect(parseRule(' Bash(npm test:*) ', 'deny', 's.json')).toMatchObject({
      tool: 'Bash',
      specifier: 'npm test:*',
      text: 'Bash(npm test:*)',
    });
    expect(parseRule('Bash(echo (a))', 'ask', 's.json')).toMatchObject({ tool: 'Bash', specifier: 'echo (a)' });
    expect(parseRule('mcp__github__create-pr', 'allow', 's.json')).toMatchObject({ tool: 'mcp__github__create-pr' });
  });

  it('treats Tool(*) as the bare tool', () => {
    expect(parseRule('Bash(*)', 'allow', 's.json')).not.toHaveProperty('specifier');
  });

  it('keeps what it cannot read as a broken rule naming the problem and, when it can, the tool', () => {
    const unclosed = parseRule('Bash(rm -rf', 'deny', 's.json');
    expect(isBroken(unclosed) && unclosed.tool).toBe('Bash');
    expect(isBroken(unclosed) && unclosed.problem).toMatch(/closing/);
    const empty = parseRule('Edit()', 'deny', 's.json');
    expect(isBroken(empty) && empty.problem).toMatch(/empty/);
    const nonsense = parseRule('(rm)', 'deny', 's.json');
    expect(isBroken(nonsense) && nonsense.tool).toBeUndefined();
  });

  it('labels a rule with its list and file', () => {
    expect(ruleLabel(parseRule('Bash(rm -rf *)', 'deny', '.claude/settings.json'))).toBe('deny:Bash(rm -rf *) in .claude/settings.json');
  });
});

describe('which tools a rule is about', () => {
  it('Edit rules govern Write; Read rules govern Grep and Glob; others go by name', () => {
    expect(ruleAppliesTo('Edit', toolNamed('Write'))).toBe(true);
    expect(ruleAppliesTo('Read', toolNamed('Grep'))).toBe(true);
    expect(ruleAppliesTo('Read', toolNamed('Glob'))).toBe(true);
    expect(ruleAppliesTo('Write', toolNamed('Edit'))).toBe(false);
    expect(ruleAppliesTo('Bash', toolNamed('Read'))).toBe(false);
  });
});

describe('Bash specifiers', () => {
  it('a :* suffix is a prefix that stops at a word boundary', () => {
    expect(commandPatternMatches('npm test:*', 'npm test')).toBe(true);
    expect(commandPatternMatches('npm test:*', 'npm test -- --run')).toBe(true);
    expect(commandPatternMatches('npm test:*', 'npm tester')).toBe(false);
    expect(commandPatternMatches('npm test:*', 'npm install')).toBe(false);
  });

  it('* is a wildcard, and a single trailing " *" may match nothing', () => {
    expect(commandPatternMatches('git push *', 'git push origin main')).toBe(true);
    expect(commandPatternMatches('git push *', 'git push')).toBe(true);
    expect(commandPatternMatches('git push *', 'git pushx')).toBe(false);
    expect(commandPatternMatches('ls*', 'lsof')).toBe(true);
    expect(commandPatternMatches('git * main', 'git checkout main')).toBe(true);
    expect(commandPatternMatches('git * main', 'git checkout dev')).toBe(false);
    expect(commandPatternMatches('rm -rf *', 'rm -rf /')).toBe(true);
  });

  it('without * the command must match exactly', () => {
    expect(commandPatternMatches('npm run build', 'npm run build')).toBe(true);
    expect(commandPatternMatches('npm run build', 'npm run build --watch')).toBe(false);
    expect(commandPatternMatches('echo \\*', 'echo *')).toBe(true);
  });
});

describe('path specifiers', () => {
  const anchors = { root: '/work/project', home: '/home/user' };

  it('a plain or ./ pattern is relative to the project root', () => {
    expect(pathPatternMatches('./secrets/**', '/work/project/secrets/key.pem', anchors)).toBe(true);
    expect(pathPatternMatches('./secrets/**', '/work/project/src/secrets/key.pem', anchors)).toBe(false);
    expect(pathPatternMatches('src/**', '/work/project/src/a/b.ts', anchors)).toBe(true);
    expect(pathPatternMatches('src/**', '/elsewhere/src/a.ts', anchors)).toBe(false);
  });

  it('a pattern without a slash matches at any depth, as in gitignore', () => {
    expect(pathPatternMatches('*.env', '/work/project/config/prod.env', anchors)).toBe(true);
    expect(pathPatternMatches('.env', '/work/project/a/.env', anchors)).toBe(true);
    expect(pathPatternMatches('./.env', '/work/project/a/.env', anchors)).toBe(false);
  });

  it('/x is from the project root, //x from the filesystem root, ~/x from home', () => {
    expect(pathPatternMatches('/src/**/*.ts', '/work/project/src/x/a.ts', anchors)).toBe(true);
    expect(pathPatternMatches('/src/**/*.ts', '/src/x/a.ts', anchors)).toBe(false);
    expect(pathPatternMatches('//etc/**', '/etc/passwd', anchors)).toBe(true);
    expect(pathPatternMatches('~/.ssh/**', '/home/user/.ssh/id_rsa', anchors)).toBe(true);
    expect(pathPatternMatches('~/.ssh/**', '/work/project/.ssh/id_rsa', anchors)).toBe(false);
  });

  it('a folder covers what is inside it', () => {
    expect(pathPatternMatches('secrets', '/work/project/secrets/deep/key', anchors)).toBe(true);
  });

  it('** covers everything under its anchor', () => {
    expect(pathPatternMatches('**', '/work/project/any/file', anchors)).toBe(true);
    expect(pathPatternMatches('**', '/other/file', anchors)).toBe(false);
  });
});
