import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashBytes } from '../../shared/core/files/readFileState.js';
import { loadCommitView } from '../../shared/infra/verify/evidence/commitView.js';
import { checkFileRead } from '../../shared/infra/verify/evidence/fileReadCheck.js';
import { checkFinding, codeTerms } from '../../shared/infra/verify/evidence/findingCheck.js';
import { checkProblem } from '../../shared/infra/verify/evidence/problemCheck.js';
import { commitFiles, git, makeRepo } from '../support/gitRepo.js';

const CART = [
  'export interface CartLine {', // 1
  '  sku: string;',
  '  unitCents: number;',
  '}',
  '',
  '// Formats cents for display.', // 6
  'function toDollars(cents: number): string {', // 7
  "  return '$' + (cents / 100).toFixed(2);",
  '}',
  '',
  'export function cartTotalCents(lines: CartLine[]): number {', // 11
  '  return lines.reduce((sum, line) => sum + line.unitCents, 0);',
  '}',
  '',
  '',
  '',
  '',
  '',
  'export const CART_VERSION = 2;', // 19
  '',
].join('\n');

function project() {
  const dir = makeRepo({
    'src/cart.ts': CART,
    'src/money.ts': 'export const formatMoney = (c: number) => `${c}`;\n',
    'README.md': '# shop\n',
  });
  return { dir, base: git(dir, 'rev-parse', 'HEAD') };
}

async function check(fact: string, evidence: string, roots: string[] = []) {
  const { dir, base } = project();
  const view = await loadCommitView(dir, base, ['src/cart.ts', 'src/missing.ts', 'src']);
  return checkFinding({ fact, evidence }, view, [...roots, dir]);
}

describe('an Explore finding, checked against the base commit', () => {
  it('is verified when the file, the line and the code it names are there', async () => {
    expect(await check('src/cart.ts defines a private toDollars helper', 'src/cart.ts:7')).toEqual({
      fact: 'src/cart.ts defines a private toDollars helper',
      evidence: 'src/cart.ts:7',
      verified: true,
    });
    // Backticked code, whole or by its identifiers, within a few lines; a range; a path it names.
    expect((await check('`cartTotalCents(lines: CartLine[])` sums `unitCents` per line', 'src/cart.ts:11-12')).verified).toBe(true);
    expect((await check('`toDollars` formats with `toFixed(2)`, beside `src/money.ts`', './src/cart.ts:8')).verified).toBe(true);
    expect((await check('the cart is written in TypeScript', 'src/cart.ts:1')).verified).toBe(true);
  });

  it('is unverified when the file does not exist at the base commit', async () => {
    const result = await check('`loadCart()` reads the saved cart', 'src/missing.ts:10');
    expect(result).toMatchObject({
      verified: false,
      reason: expect.stringMatching(/^src\/missing\.ts does not exist at the base commit [0-9a-f]{12}$/),
    });
    expect((await check('the sources', 'src:1')).reason).toMatch(/^src is a folder at the base commit/);
  });

  it('is unverified when the line is past the end of the file', async () => {
    const result = await check('toDollars is defined here', 'src/cart.ts:400');
    expect(result.reason).toMatch(/^src\/cart\.ts has 19 lines at the base commit [0-9a-f]{12}; line 400 is past its end$/);
    expect((await check('a range past the end', 'src/cart.ts:18-25')).verified).toBe(false);
  });

  it('is unverified when a symbol it names in code form is not near the cited line', async () => {
    const result = await check('`applyDiscount` lowers the total', 'src/cart.ts:11');
    expect(result.reason).toMatch(/^`applyDiscount` does not occur in src\/cart\.ts lines 6–16 \(within 5 lines of the cited line 11\)/);
    // Present in the file, but far from the cited line: not evidence of it.
    expect((await check('`CART_VERSION` is the schema version', 'src/cart.ts:7')).verified).toBe(false);
    // An identifier-shaped word outside backticks counts as code too.
    expect((await check('the cart calls formatMoney for every line', 'src/cart.ts:12')).reason).toContain('`formatMoney` does not occur');
  });

  it('takes an absolute path inside the agent’s worktree or the repository, and refuses one outside', async () => {
    const { dir, base } = project();
    const view = await loadCommitView(dir, base, ['src/cart.ts']);
    const inView = checkFinding({ fact: 'toDollars', evidence: '/views/abc/src/cart.ts:7' }, view, ['/views/abc', dir]);
    expect(inView.verified).toBe(true);
    expect(checkFinding({ fact: 'toDollars', evidence: `${dir}/src/cart.ts:7` }, view, [dir]).verified).toBe(true);
    expect(checkFinding({ fact: 'x', evidence: '/etc/passwd:1' }, view, [dir]).reason).toBe(
      '/etc/passwd is an absolute path outside the repository',
    );
  });

  it('reads the commit’s objects, not the working tree', async () => {
    const { dir, base } = project();
    writeFileSync(path.join(dir, 'src/cart.ts'), 'export const applyDiscount = 1;\n');
    const view = await loadCommitView(dir, base, ['src/cart.ts']);
    expect(checkFinding({ fact: '`applyDiscount`', evidence: 'src/cart.ts:1' }, view, [dir]).verified).toBe(false);
    expect(checkFinding({ fact: '`CartLine`', evidence: 'src/cart.ts:1' }, view, [dir]).verified).toBe(true);
  });

  it('finds the code words of a fact: backticks, camelCase, snake_case, calls, paths; not plain words', () => {
    expect(codeTerms('`a + b` in src/x.ts calls parseInt() and reads MAX_SIZE and userName, e.g. via JavaScript or Node.js')).toEqual([
      { text: 'a + b', kind: 'code' },
      { text: 'src/x.ts', kind: 'path' },
      { text: 'parseInt', kind: 'identifier' },
      { text: 'MAX_SIZE', kind: 'identifier' },
      { text: 'userName', kind: 'identifier' },
    ]);
  });
});

describe('a file an Explore agent read, checked against the base commit', () => {
  it('is verified with the base’s bytes, unverified with others or when the file is not there', async () => {
    const { dir, base } = project();
    const view = await loadCommitView(dir, base, ['src/cart.ts', 'src/gone.ts']);
    expect(await checkFileRead({ path: 'src/cart.ts', hash: hashBytes(CART), partial: false }, view)).toMatchObject({ verified: true });
    const other = await checkFileRead({ path: 'src/cart.ts', hash: hashBytes('changed'), partial: true, seen: [[1, 5]] }, view);
    expect(other).toMatchObject({ verified: false, seen: [[1, 5]], reason: expect.stringMatching(/^the bytes read of src\/cart\.ts/) });
    expect((await checkFileRead({ path: 'src/gone.ts', hash: hashBytes(''), partial: false }, view)).reason).toMatch(
      /^src\/gone\.ts is not a file of the base commit/,
    );
  });

  it('accepts the bytes a checkout writes when git converts line endings', async () => {
    const { dir } = project();
    const head = commitFiles(dir, { '.gitattributes': '*.txt text eol=crlf\n', 'notes.txt': 'one\ntwo\n' }, 'crlf notes');
    const view = await loadCommitView(dir, head, ['notes.txt']);
    expect(await checkFileRead({ path: 'notes.txt', hash: hashBytes('one\r\ntwo\r\n'), partial: false }, view)).toMatchObject({
      verified: true,
    });
  });
});

describe('a problem a Verification agent reported, checked against the merged tree', () => {
  it('is kept either way: verified when the file and line are there, unverified with the reason when not', async () => {
    const { dir, base } = project();
    git(dir, 'rm', '-q', 'src/money.ts');
    const head = commitFiles(dir, {}, 'remove money');
    const view = await loadCommitView(dir, head, ['src/cart.ts', 'src/money.ts']);
    expect(checkProblem({ file: 'src/cart.ts', line: 7, what: 'rounds wrong' }, view, [dir])).toMatchObject({ verified: true });
    expect(checkProblem({ file: 'src/money.ts', what: 'still imported but deleted' }, view, [dir])).toMatchObject({
      verified: false,
      what: 'still imported but deleted',
      reason: expect.stringMatching(/^src\/money\.ts does not exist in the merged tree [0-9a-f]{12}$/),
    });
    expect(checkProblem({ file: '/somewhere/else.ts', what: 'x' }, view, [dir]).reason).toBe(
      '/somewhere/else.ts is an absolute path outside the repository',
    );
    expect(checkProblem({ file: 'src/cart.ts', line: 99, what: 'x' }, view, [dir]).reason).toMatch(
      /has 19 lines in the merged tree .*line 99 is past its end/,
    );
    expect(base).not.toBe(head);
  });
});
