import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Workspace } from '../../shared/core/files/workspace.js';
import type { PermissionMode } from '../../shared/core/tool/permissionMode.js';
import { PermissionPolicy, type PolicyOptions } from '../../shared/policy/permissions/policy.js';
import { parseRule, RULE_BEHAVIORS, type RuleBehavior } from '../../shared/policy/permissions/rule.js';
import { bashLevel } from '../../shared/policy/permissions/shell/bashLevel.js';
import { tempDir } from '../support/tempDir.js';
import { toolNamed } from '../support/toolNamed.js';

/**
 * The paths Bash commands write by their arguments, through the real permission decider: the
 * user's main checkout stands outside the workspace, and every way of writing it is refused,
 * sandbox or not; what cannot be told before it runs is refused only without the sandbox.
 */
type Rules = Partial<Record<RuleBehavior, string[]>>;

const UNSANDBOXED: PolicyOptions = { bashSandboxed: false, writableOutside: [] };
// What shellSandbox gives the policy when bwrap runs.
const SANDBOXED: PolicyOptions = { bashSandboxed: true, writableOutside: ['/tmp'] };

const outsideTmp: string[] = [];
afterEach(() => {
  for (const dir of outsideTmp.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * A workspace and a stand-in for the user's checkout beside it. Under the sandbox the host's /tmp
 * is replaced by a private one, so there the checkout lives in /var/tmp, which stays visible.
 */
function setup(options: PolicyOptions, rules: Rules = {}) {
  const workspace = new Workspace(tempDir('orca-ws-'));
  const root = workspace.root;
  let main: string;
  if (options.bashSandboxed) {
    main = realpathSync(mkdtempSync('/var/tmp/orca-main-'));
    outsideTmp.push(main);
  } else {
    main = realpathSync(tempDir('orca-main-'));
  }
  writeFileSync(path.join(main, 'README.md'), '# main\n');
  mkdirSync(path.join(main, 'empty'));
  for (const file of ['README.md', 'a.txt', 'src/a.ts', 'scripts/run.sh', '.env.example']) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), 'x\n');
  }
  symlinkSync(main, path.join(root, 'into-main'));
  const policy = new PermissionPolicy(
    RULE_BEHAVIORS.flatMap((behavior) => (rules[behavior] ?? []).map((text) => parseRule(text, behavior, '.claude/settings.json'))),
    options,
  );
  const relativeMain = path.relative(root, main);
  const expand = (command: string) => command.replaceAll('REL', relativeMain).replaceAll('MAIN', main);
  const bash = (command: string, mode: PermissionMode = 'full-access') => {
    const text = expand(command);
    return policy.decide({ tool: toolNamed('Bash'), input: { command: text }, level: bashLevel(text) }, { mode, workspace });
  };
  return { root, main, bash };
}

/** Commands that name a path in the main checkout (MAIN absolute, REL relative to the workspace). */
const ESCAPES = [
  'cp README.md MAIN/x',
  'cp -t MAIN README.md',
  'cp --target-directory=MAIN README.md',
  'cp --targ=MAIN README.md',
  'cp -rtMAIN src',
  'cp -r src MAIN',
  'cp --parents src/a.ts MAIN',
  'mv a.txt MAIN/',
  'mv MAIN/README.md stolen.md',
  'install -m 644 a.txt MAIN/x',
  'install -t MAIN a.txt',
  'install -d MAIN/newdir',
  'ln -s ../a.txt MAIN/link',
  'ln a.txt MAIN/hard',
  'ln MAIN/README.md hard-link',
  'cp -l MAIN/README.md hard-copy',
  'touch MAIN/x',
  'touch -d yesterday MAIN/README.md',
  'mkdir -p MAIN/a/b',
  'rm MAIN/README.md',
  'rm -f -- MAIN/README.md',
  'rmdir MAIN/empty',
  'unlink MAIN/README.md',
  'echo x | tee MAIN/x',
  'echo x | tee -a out.log MAIN/x',
  'truncate -s 0 MAIN/README.md',
  'dd if=/dev/zero of=MAIN/x bs=1 count=1',
  "sed -i 's/a/b/' MAIN/README.md",
  "sed -ie 's/a/b/' MAIN/README.md",
  "sed --in-place=.bak -e 's/a/b/' MAIN/README.md",
  "perl -pi -e 's/a/b/' MAIN/README.md",
  "perl -i.bak -pe 's/a/b/' MAIN/README.md",
  'chmod +x MAIN/README.md',
  'chmod -w MAIN/README.md',
  'chown -R 1000 MAIN',
  'chgrp users MAIN/README.md',
  'rsync -a src/ MAIN/',
  'rsync -av --delete src MAIN',
  'tar -xf a.tar -C MAIN',
  'tar xzf a.tgz -C MAIN',
  'tar --extract --file=a.tar --directory=MAIN',
  'tar -czf MAIN/out.tgz src',
  'unzip a.zip -d MAIN',
  'unzip -o -dMAIN a.zip',
  'git -C MAIN commit --allow-empty -m x',
  'git --git-dir=MAIN/.git --work-tree=MAIN add .',
  'GIT_DIR=MAIN/.git git commit -m x',
  'git clone https://example.com/r.git MAIN/clone',
  'git worktree add MAIN/wt',
  'make -C MAIN',
  'find MAIN -name "*.md" -delete',
  'find MAIN -type f -exec rm {} +',
  'env -C MAIN touch x',
  'cd MAIN && touch x',
  '(cd MAIN; rm README.md)',
  'pushd MAIN && mkdir x',
  'timeout 5 cp README.md MAIN/x',
  '/bin/cp README.md MAIN/x',
  "bash -c 'touch MAIN/x'",
  'cp README.md REL/x',
  'touch REL/x',
];

describe('a command that writes the main checkout by its arguments is refused', () => {
  it.each(ESCAPES)('without the sandbox: %s', (command) => {
    const { bash, main } = setup(UNSANDBOXED, { allow: ['Bash', 'Edit'] });
    const decision = bash(command);
    expect(decision).toMatchObject({ behavior: 'deny', by: 'workspace' });
    expect(decision.reason).toContain(main);
    expect(decision.reason).toMatch(/outside the workspace/);
  });

  it.each(ESCAPES)('in the sandbox too, as a second wall: %s', (command) => {
    const { bash } = setup(SANDBOXED, { allow: ['Bash', 'Edit'] });
    expect(bash(command)).toMatchObject({ behavior: 'deny', by: 'workspace' });
  });

  it('names the path and the workspace in the words the redirections use', () => {
    const { bash, main, root } = setup(UNSANDBOXED);
    expect(bash('cp README.md MAIN/x').reason).toBe(
      `\`cp README.md ${main}/x\`: ${main}/x is outside the workspace ${root}; writes are only allowed inside it.`,
    );
    expect(bash('ln MAIN/README.md hard-link').reason).toMatch(
      /would hard-link .*; writes are only allowed inside it\. Copy the file instead$/,
    );
  });
});

/** The same commands, writing inside the workspace. */
const INSIDE = [
  'cp README.md docs-copy.md',
  'cp -t src README.md',
  'cp -r src build',
  'mv a.txt b.txt',
  'install -m 644 a.txt build/a.txt',
  'install -d build/bin',
  'ln -s ../README.md src/readme-link',
  'ln a.txt a-hard.txt',
  'touch src/new.ts',
  'mkdir -p build/a/b',
  'rm a.txt',
  'rmdir src',
  'unlink a.txt',
  'echo hi | tee out.log',
  'truncate -s 0 a.txt',
  'dd if=a.txt of=b.txt',
  "sed -i 's/a/b/' src/a.ts",
  "perl -pi -e 's/a/b/' src/a.ts",
  'chmod +x scripts/run.sh',
  'chmod +x scripts/*.sh',
  'chown -R 1000 src',
  'rsync -a src/ build/',
  'tar -xzf a.tgz -C src',
  'tar -czf out.tgz src',
  'unzip -q a.zip -d src',
  'git commit -m "a message"',
  'git -C src log --oneline',
  'make -C src',
  'find . -name "*.o" -delete',
  'find src -type f -exec rm {} +',
  'env -C src touch x',
  'cd src && touch x.ts',
  'rm -f src/*.o',
  'rm into-main',
];

describe('the same commands writing inside the workspace', () => {
  it.each(INSIDE)('are allowed without the sandbox: %s', (command) => {
    const { bash } = setup(UNSANDBOXED);
    expect(bash(command).behavior).toBe(command === 'dd if=a.txt of=b.txt' ? 'ask' : 'allow');
  });

  it('dd stays destructive: it needs a rule naming it, and then writes inside', () => {
    expect(setup(UNSANDBOXED).bash('dd if=a.txt of=b.txt').by).toBe('destructive');
    expect(setup(UNSANDBOXED, { allow: ['Bash(dd if=a.txt of=b.txt)'] }).bash('dd if=a.txt of=b.txt').behavior).toBe('allow');
  });
});

describe('no false alarms on ordinary commands', () => {
  it.each([
    'npm test',
    'git status',
    'cp src/a.ts src/b.ts',
    'mkdir -p build && tsc',
    'npm install && npm run build',
    'git add -A && git commit -m "fix the bug"',
    'cd src && npm test',
    'python3 -m pytest -q',
    'ls | xargs -n1 echo',
    'find . -name "*.ts" | xargs grep -l TODO',
    'cp -- "$SRC" build/',
    'cp a.txt /dev/null',
    'git worktree list',
    'cat README.md | head -5 > notes.txt',
  ])('%s', (command) => {
    const { bash } = setup(UNSANDBOXED);
    expect(bash(command)).toMatchObject({ behavior: 'allow', by: 'mode:full-access' });
  });

  it('a command’s writes inside the workspace add nothing to what the mode or its rule needs', () => {
    const { bash } = setup(UNSANDBOXED, { allow: ['Bash(touch:*)'] });
    expect(bash('touch notes.txt', 'read-only')).toMatchObject({ behavior: 'allow', by: 'allow:Bash(touch:*) in .claude/settings.json' });
    expect(setup(UNSANDBOXED).bash('cp src/a.ts src/b.ts', 'workspace-write')).toMatchObject({
      behavior: 'ask',
      by: 'mode:workspace-write',
    });
  });
});

describe('after a cd out of the workspace', () => {
  it.each([
    'cd MAIN && npm test',
    'cd MAIN && git commit -m x',
    'cd REL && make',
    'env -C MAIN npm install',
    'cd into-main && npm test',
    'cd MAIN; python3 build.py',
  ])('a command that is not read-only is refused without the sandbox, which would stop its writes: %s', (command) => {
    const decision = setup(UNSANDBOXED, { allow: ['Bash'] }).bash(command);
    expect(decision).toMatchObject({ behavior: 'deny', by: 'workspace' });
    expect(decision.reason).toMatch(/runs in .*, and Bash runs without the sandbox here.*Run it from inside the workspace$/);
    expect(setup(SANDBOXED, { allow: ['Bash'] }).bash(command).behavior).toBe('allow');
  });

  it.each(['cd MAIN && git status && cat README.md | head -1', 'cd MAIN && ls -la', 'cd REL && git log --oneline -3'])(
    'read-only commands still run there: %s',
    (command) => {
      expect(setup(UNSANDBOXED).bash(command, 'read-only').behavior).toBe('allow');
    },
  );
});

describe('targets that cannot be told before the command runs', () => {
  it.each([
    'cp README.md $DEST',
    'cp README.md "$DEST/x"',
    'touch "$(cat target-list)"',
    'rm -f "$FILE"',
    'cp -t "$DIR" a.txt',
    'cp "$SRC" build/',
    'cp * build/',
    'tar -xf a.tar -C $OUT',
    'mkdir -p ~/x',
    'touch src/{a,b}.ts',
    'echo a.txt | xargs rm',
    'cd "$DIR" && touch x',
    'cd "$DIR" && npm test',
    'cp README.md `cat dest`',
    'find . -exec cp {} "$OUT" \\;',
    'git -C "$REPO" commit -m x',
    'cp --frobnicate README.md x',
    "sed -i'../x/*' 's/a/b/' a.txt",
    'tar -xPf a.tar',
  ])('%s: refused without the sandbox, left to it with the sandbox', (command) => {
    const unsandboxed = setup(UNSANDBOXED, { allow: ['Bash'] }).bash(command);
    expect(unsandboxed).toMatchObject({ behavior: 'deny', by: 'bash-analysis' });
    expect(unsandboxed.reason).toMatch(/without the sandbox/);
    expect(unsandboxed.reason).toMatch(/inside the workspace/);
    expect(setup(SANDBOXED, { allow: ['Bash'] }).bash(command).behavior).toBe('allow');
  });

  it('says why and what to do', () => {
    expect(setup(UNSANDBOXED).bash('cp README.md $DEST').reason).toBe(
      'cannot tell which files `cp README.md $DEST` writes until it runs: $DEST could expand to something starting with - and be read as an option; ' +
        'put -- before the operands or start the path with ./. Bash runs without the sandbox here, so nothing else would stop it writing outside the workspace; ' +
        'name each path it writes literally, inside the workspace',
    );
    expect(setup(UNSANDBOXED).bash('cp -- README.md "$DEST"').reason).toMatch(
      /^cannot tell which files .*: "\$DEST" is only known when it runs\./,
    );
  });

  it('a write to /tmp reaches the host’s /tmp only without the sandbox', () => {
    expect(setup(UNSANDBOXED).bash('cp a.txt /tmp/scratch.txt')).toMatchObject({ behavior: 'deny', by: 'workspace' });
    expect(setup(SANDBOXED).bash('cp a.txt /tmp/scratch.txt').behavior).toBe('allow');
  });
});

describe('symbolic links', () => {
  it.each([
    'touch into-main/x',
    'cp a.txt into-main/',
    'rm into-main/README.md',
    'chmod +x *',
    'rm -f */README.md',
    'cp a.txt into-main/../escaped',
    'echo x > into-main/../escaped',
  ])('a link already in the workspace is followed to where it leads: %s', (command) => {
    expect(setup(UNSANDBOXED, { allow: ['Bash'] }).bash(command)).toMatchObject({ behavior: 'deny', by: 'workspace' });
    expect(setup(SANDBOXED, { allow: ['Bash'] }).bash(command)).toMatchObject({ behavior: 'deny', by: 'workspace' });
  });

  it('a link leading out may be made on its own, not with commands that could write through it unchecked', () => {
    const { bash } = setup(UNSANDBOXED);
    expect(bash('ln -s MAIN lnk').behavior).toBe('allow');
    expect(bash('ln -s MAIN lnk 2>/dev/null').behavior).toBe('allow');
    const combined = bash('ln -s MAIN lnk && touch lnk/x');
    expect(combined).toMatchObject({ behavior: 'deny', by: 'workspace' });
    expect(combined.reason).toMatch(/make the link in a Bash call of its own$/);
    expect(bash('ln -s "$TARGET" lnk && touch lnk/x').behavior).toBe('deny');
    expect(bash('ln -s src lnk && touch lnk/x').behavior).toBe('allow');
    expect(setup(SANDBOXED).bash('ln -s MAIN lnk && touch lnk/x').behavior).toBe('allow');
  });
});

describe('guarded paths written by a command’s arguments', () => {
  it.each([
    ['cp .env.example .env', '.env'],
    ['touch .git/hooks/pre-commit', '.git/hooks/pre-commit'],
    ['chmod +x .husky/pre-push', '.husky/pre-push'],
    ["sed -i 's/a/b/' .claude/settings.json", '.claude/settings.json'],
    ['mkdir -p .claude/commands', '.claude/commands'],
    ['echo x | tee -a .bashrc', '.bashrc'],
    ['rm .env', '.env'],
    ['mv a.txt .npmrc', '.npmrc'],
    ['cp -t .git a.txt', '.git'],
    ['rm -f .env*', '.env*'],
  ])('%s needs an allow rule naming %s', (command, file) => {
    const guarded = setup(UNSANDBOXED, { allow: ['Bash', 'Edit'] }).bash(command);
    expect(guarded).toMatchObject({ behavior: 'ask', by: 'guarded-path' });
    expect(guarded.reason).toContain(`e.g. Edit(${file})`);
    expect(setup(UNSANDBOXED, { allow: [`Edit(${file})`] }).bash(command).behavior).toBe('allow');
  });

  it('git writing its own repository folder is not held to it', () => {
    expect(setup(UNSANDBOXED).bash('git --git-dir=.git --work-tree=. commit -m x').behavior).toBe('allow');
  });

  it('Edit deny and ask rules cover what a command writes, as they cover redirections', () => {
    const { bash } = setup(UNSANDBOXED, { deny: ['Edit(src/generated/**)'], ask: ['Edit(docs/**)'] });
    expect(bash('cp a.txt src/generated/api.ts')).toMatchObject({
      behavior: 'deny',
      by: 'deny:Edit(src/generated/**) in .claude/settings.json',
    });
    expect(bash('rm -f src/generated/old.ts').behavior).toBe('deny');
    expect(bash('touch docs/index.md')).toMatchObject({ behavior: 'ask', by: 'ask:Edit(docs/**) in .claude/settings.json' });
  });
});
