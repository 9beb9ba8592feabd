import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { untrackedInV2 } from '../../shared/infra/verify/evidence/treeHash.js';
import { assertionsGate, auditTestChanges } from '../../shared/infra/verify/gates/assertions.js';
import { commitFiles, git, makeRepo } from '../support/gitRepo.js';

const CART_TEST = `import { describe, expect, it } from 'vitest';
import { total } from '../src/cart.js';

describe('cart', () => {
  it('adds prices', () => {
    expect(total([1, 2])).toBe(3);
    expect(total([])).toBe(0);
  });

  it('rounds to cents', () => {
    expect(total([0.1, 0.2])).toEqual(0.3);
  });
});
`;

function repoWith(files: Record<string, string>): { dir: string; base: string } {
  const dir = makeRepo({ 'src/cart.js': 'export const total = (xs) => xs.reduce((a, b) => a + b, 0);\n', ...files });
  return { dir, base: git(dir, 'rev-parse', 'HEAD') };
}

async function flagsAfter(files: Record<string, string>, change: Record<string, string>) {
  const { dir, base } = repoWith(files);
  const head = commitFiles(dir, change, 'change');
  return auditTestChanges({ repo: dir, base, head });
}

describe('assertions audit: weakened tests are flagged with their hunk', () => {
  it('a deleted assertion', async () => {
    const flags = await flagsAfter(
      { 'test/cart.test.js': CART_TEST },
      { 'test/cart.test.js': CART_TEST.replace('    expect(total([])).toBe(0);\n', '') },
    );
    expect(flags.map((flag) => [flag.file, flag.kind, flag.detail])).toEqual([
      ['test/cart.test.js', 'assertion_removed', '3 assertion(s) before, 2 after'],
    ]);
    expect(flags[0]!.hunk).toContain('-    expect(total([])).toBe(0);');
    expect(flags[0]!.hunk).toMatch(/^@@ -\d+,\d+ \+\d+,\d+ @@/);
  });

  it('a commented-out assertion counts as deleted', async () => {
    const flags = await flagsAfter(
      { 'test/cart.test.js': CART_TEST },
      { 'test/cart.test.js': CART_TEST.replace('    expect(total([])).toBe(0);', '    // expect(total([])).toBe(0);') },
    );
    expect(flags.map((flag) => flag.kind)).toEqual(['assertion_removed']);
  });

  it('an exact assertion loosened to a vague one', async () => {
    const flags = await flagsAfter(
      { 'test/cart.test.js': CART_TEST },
      { 'test/cart.test.js': CART_TEST.replace('expect(total([0.1, 0.2])).toEqual(0.3)', 'expect(total([0.1, 0.2])).toBeTruthy()') },
    );
    expect(flags.map((flag) => flag.kind)).toEqual(['assertion_loosened']);
    expect(flags[0]!.hunk).toContain('+    expect(total([0.1, 0.2])).toBeTruthy();');
  });

  it('added skip, only and todo markers', async () => {
    const changed = CART_TEST.replace("it('adds prices'", "it.skip('adds prices'")
      .replace("it('rounds to cents'", "it.only('rounds to cents'")
      .replace('});\n});', "});\n  it.todo('handles discounts');\n});");
    const flags = await flagsAfter({ 'test/cart.test.js': CART_TEST }, { 'test/cart.test.js': changed });
    expect(flags.map((flag) => flag.kind).sort()).toEqual(['only_added', 'skip_added', 'todo_added']);
  });

  it('a deleted test case, a deleted test file and a test file renamed to a non-test name', async () => {
    const withoutSecond = CART_TEST.replace(/\n {2}it\('rounds to cents'[\s\S]*?\n {2}\}\);\n/, '\n');
    const { dir, base } = repoWith({
      'test/cart.test.js': CART_TEST,
      'src/money.test.js': "import { it, expect } from 'vitest';\nit('m', () => expect(1).toBe(1));\n",
      'src/old.spec.js': "it('o', () => expect(2).toBe(2));\n",
    });
    writeFileSync(path.join(dir, 'test/cart.test.js'), withoutSecond);
    rmSync(path.join(dir, 'src/money.test.js'));
    git(dir, 'mv', 'src/old.spec.js', 'src/old.js');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'trim');
    const flags = await auditTestChanges({ repo: dir, base, head: git(dir, 'rev-parse', 'HEAD') });
    const kinds = flags.map((flag) => `${flag.file}:${flag.kind}`).sort();
    expect(kinds).toEqual([
      'src/money.test.js:test_file_removed',
      'src/old.spec.js:test_file_removed',
      'test/cart.test.js:assertion_removed',
      'test/cart.test.js:test_removed',
    ]);
    expect(flags.find((flag) => flag.file === 'src/old.spec.js')!.detail).toContain('renamed to src/old.js');
  });

  it('python: an assert loosened, a skip added; go: t.Skip; rust: #[ignore]', async () => {
    const py = 'import pytest\n\ndef test_total():\n    assert total([1, 2]) == 3\n';
    const go = 'package cart\n\nimport "testing"\n\nfunc TestTotal(t *testing.T) {\n\tif Total(1, 2) != 3 {\n\t\tt.Fatal("bad")\n\t}\n}\n';
    const rs = '#[cfg(test)]\nmod tests {\n    #[test]\n    fn total() {\n        assert_eq!(super::total(1, 2), 3);\n    }\n}\n';
    const flags = await flagsAfter(
      { 'tests/test_cart.py': py, 'cart_test.go': go, 'tests/cart.rs': rs },
      {
        'tests/test_cart.py': py
          .replace('def test_total', '@pytest.mark.skip(reason="flaky")\ndef test_total')
          .replace('assert total([1, 2]) == 3', 'assert total([1, 2])'),
        'cart_test.go': go.replace('func TestTotal(t *testing.T) {\n', 'func TestTotal(t *testing.T) {\n\tt.Skip("later")\n'),
        'tests/cart.rs': rs.replace('    #[test]\n', '    #[test]\n    #[ignore]\n'),
      },
    );
    expect(flags.map((flag) => `${flag.file}:${flag.kind}`).sort()).toEqual([
      'cart_test.go:skip_added',
      'tests/cart.rs:skip_added',
      'tests/test_cart.py:assertion_loosened',
      'tests/test_cart.py:skip_added',
    ]);
  });

  it('a runner config that stops running tests, and a test script that no longer tests', async () => {
    const config =
      "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { include: ['test/**/*.test.js'] } });\n";
    const pkg = JSON.stringify({ name: 'cart', scripts: { test: 'vitest run', build: 'tsc' } }, null, 2);
    const flags = await flagsAfter(
      { 'vitest.config.ts': config, 'package.json': pkg },
      {
        'vitest.config.ts': config.replace(
          "include: ['test/**/*.test.js']",
          "include: ['test/**/*.test.js'], exclude: ['test/cart.test.js']",
        ),
        'package.json': pkg.replace('"test": "vitest run"', '"test": "vitest run --passWithNoTests || true"'),
      },
    );
    expect(flags.map((flag) => `${flag.file}:${flag.kind}`).sort()).toEqual([
      'package.json:runner_config_changed',
      'vitest.config.ts:runner_config_changed',
    ]);
  });

  it("finds tests by the runner's own config too (jest testMatch)", async () => {
    const pkg = JSON.stringify({ name: 'cart', jest: { testMatch: ['**/checks/*.js'] } }, null, 2);
    const check = "test('total', () => {\n  expect(total([1])).toBe(1);\n});\n";
    const flags = await flagsAfter(
      { 'package.json': pkg, 'checks/cart.js': check },
      { 'checks/cart.js': check.replace('  expect(total([1])).toBe(1);\n', '') },
    );
    expect(flags.map((flag) => `${flag.file}:${flag.kind}`)).toEqual(['checks/cart.js:assertion_removed']);
  });

  it('audits the working folder when no head commit is given', async () => {
    const { dir, base } = repoWith({ 'test/cart.test.js': CART_TEST });
    writeFileSync(path.join(dir, 'test/cart.test.js'), CART_TEST.replace("it('adds prices'", "xit('adds prices'"));
    const flags = await auditTestChanges({ repo: dir, base });
    expect(flags.map((flag) => flag.kind)).toEqual(['skip_added']);
  });
});

describe("assertions audit of the working folder from the watch's look", () => {
  it("takes the untracked files from the look's status as git's own listing would name them", async () => {
    const { dir, base } = repoWith({ 'test/cart.test.js': CART_TEST });
    writeFileSync(path.join(dir, 'jest.config.js'), "module.exports = { testPathIgnorePatterns: ['cart'] };\n");
    const status = git(dir, 'status', '--porcelain=v2', '--branch', '-z', '--untracked-files=all', '--no-renames', '--ignored=matching');
    const asked = await auditTestChanges({ repo: dir, base });
    const looked = await auditTestChanges({ repo: dir, base, untracked: untrackedInV2(status) });
    expect(untrackedInV2(status)).toEqual(['jest.config.js']);
    expect(asked.map((flag) => `${flag.file}:${flag.kind}`)).not.toEqual([]);
    expect(looked).toEqual(asked);
  });

  const lookOf = (dir: string) =>
    git(dir, 'status', '--porcelain=v2', '--branch', '-z', '--untracked-files=all', '--no-renames', '--ignored=matching');
  const weakened = CART_TEST.replace('    expect(total([])).toBe(0);\n', '');

  it('asks git for no diff where the look names no test file or runner config: a change after the look is not seen', async () => {
    const { dir, base } = repoWith({ 'test/cart.test.js': CART_TEST });
    writeFileSync(path.join(dir, 'src/cart.js'), 'export const total = (xs) => xs.reduce((a, b) => a + b, 0) + 0;\n');
    writeFileSync(path.join(dir, 'notes.md'), 'untracked\n');
    const status = lookOf(dir);
    // Written after the look (the watch would have looked again): only a diff asked of git could name it.
    writeFileSync(path.join(dir, 'test/cart.test.js'), weakened);
    expect(await auditTestChanges({ repo: dir, base, untracked: untrackedInV2(status), status })).toEqual([]);
    expect((await auditTestChanges({ repo: dir, base })).map((flag) => flag.kind)).toEqual(['assertion_removed']);
  });

  it("audits the whole diff where the look names a test (by name or by a root config's glob), a runner config, or another HEAD", async () => {
    const pkg = JSON.stringify({ name: 'cart', jest: { testMatch: ['**/checks/*.js'] } }, null, 2);
    const check = "test('total', () => {\n  expect(total([1])).toBe(1);\n});\n";
    const config =
      "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { include: ['test/**/*.test.js'] } });\n";
    const cases: Array<{ files: Record<string, string>; change: (dir: string) => void; kinds: string[] }> = [
      {
        files: { 'test/cart.test.js': CART_TEST },
        change: (dir) => writeFileSync(path.join(dir, 'test/cart.test.js'), weakened),
        kinds: ['test/cart.test.js:assertion_removed'],
      },
      {
        files: { 'package.json': pkg, 'checks/cart.js': check },
        change: (dir) => writeFileSync(path.join(dir, 'checks/cart.js'), check.replace('  expect(total([1])).toBe(1);\n', '')),
        kinds: ['checks/cart.js:assertion_removed'],
      },
      {
        files: { 'vitest.config.ts': config },
        change: (dir) =>
          writeFileSync(
            path.join(dir, 'vitest.config.ts'),
            config.replace("include: ['test/**/*.test.js']", "include: [], exclude: ['test/**']"),
          ),
        kinds: ['vitest.config.ts:runner_config_changed'],
      },
      {
        files: { 'test/cart.test.js': CART_TEST },
        // Committed by the agent: HEAD is no longer the base, and the look's list is HEAD's, not the base's.
        change: (dir) => commitFiles(dir, { 'test/cart.test.js': weakened }, 'weakened'),
        kinds: ['test/cart.test.js:assertion_removed'],
      },
    ];
    for (const { files, change, kinds } of cases) {
      const { dir, base } = repoWith(files);
      change(dir);
      const status = lookOf(dir);
      const looked = await auditTestChanges({ repo: dir, base, untracked: untrackedInV2(status), status });
      expect(looked.map((flag) => `${flag.file}:${flag.kind}`)).toEqual(kinds);
    }
  });
});

describe('assertions audit: no false alarms', () => {
  it('new tests, new test files, a changed expected value and source changes are not flagged', async () => {
    const more = CART_TEST.replace('});\n});', "});\n\n  it('handles one item', () => {\n    expect(total([5])).toBe(5);\n  });\n});");
    const flags = await flagsAfter(
      { 'test/cart.test.js': CART_TEST },
      {
        'test/cart.test.js': more.replace('expect(total([1, 2])).toBe(3)', 'expect(total([1, 2, 4])).toBe(7)'),
        'test/new.test.js': "import { it, expect } from 'vitest';\nit('new', () => expect(1).toBe(1));\n",
        'src/cart.js': 'export const total = (xs) => Math.round(xs.reduce((a, b) => a + b, 0) * 100) / 100;\n',
        'README.md': 'docs\n',
      },
    );
    expect(flags).toEqual([]);
  });
});

describe('the assertions gate', () => {
  it('fails while a flag is unconfirmed, naming its id; passes once each flag is confirmed with a reason', async () => {
    const flags = await flagsAfter(
      { 'test/cart.test.js': CART_TEST },
      {
        'test/cart.test.js': CART_TEST.replace('    expect(total([])).toBe(0);\n', '').replace(
          "it('rounds to cents'",
          "it.skip('rounds to cents'",
        ),
      },
    );
    expect(flags).toHaveLength(2);
    const open = assertionsGate(flags);
    expect(open.ok).toBe(false);
    for (const flag of flags) expect(open.reason).toContain(`[${flag.id}] test/cart.test.js`);

    const half = assertionsGate(flags, [{ flag: flags[0]!.id, reason: 'the empty-cart case moved to cart.empty.test.js' }]);
    expect(half.ok).toBe(false);
    expect(half.reason).toContain(flags[1]!.id);
    expect(half.reason).not.toContain(flags[0]!.id);

    const all = assertionsGate(
      flags,
      flags.map((flag) => ({ flag: flag.id, reason: 'confirmed against the spec' })),
    );
    expect(all).toMatchObject({ name: 'assertions', ok: true });
  });

  it('gives the same ids to the same change, so a confirmation survives a re-audit', async () => {
    const { dir, base } = repoWith({ 'test/cart.test.js': CART_TEST });
    const head = commitFiles(dir, { 'test/cart.test.js': CART_TEST.replace('    expect(total([])).toBe(0);\n', '') }, 'drop');
    const first = await auditTestChanges({ repo: dir, base, head });
    const again = await auditTestChanges({ repo: dir, base, head });
    expect(again.map((flag) => flag.id)).toEqual(first.map((flag) => flag.id));
  });
});
