import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { codeUnitOrder } from '../../shared/core/text/codeUnitOrder.js';
import { groupedNumber } from '../../shared/core/text/groupedNumber.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('numbers and orders written without ICU (a worker pages in none of its data: worker_rss_mb)', () => {
  it('groups digits exactly as toLocaleString("en-US") does, for counts and fractions of either sign', () => {
    const values = [
      0, 7, 999, 1_000, 1_234, 99_999, 100_000, 1_234_567, 200_000, 1_000_000_000, -1, -1_234, -1_234_567, 1_234.5, -12_345.25, 0.5,
    ];
    for (const value of values) expect(groupedNumber(value), String(value)).toBe(value.toLocaleString('en-US'));
  });

  it('writes what is not a finite number as String does', () => {
    expect(groupedNumber(Number.NaN)).toBe('NaN');
    expect(groupedNumber(Number.POSITIVE_INFINITY)).toBe('Infinity');
  });

  it("orders strings by code unit, the order git lists ASCII paths in (upper case before lower, '-' before '/')", () => {
    const paths = ['src/b.ts', 'README.md', 'src-old/a.ts', 'src/a.ts', 'Makefile', 'lib/z.ts'];
    expect([...paths].sort(codeUnitOrder)).toEqual(['Makefile', 'README.md', 'lib/z.ts', 'src-old/a.ts', 'src/a.ts', 'src/b.ts']);
    expect(codeUnitOrder('a', 'a')).toBe(0);
  });

  it('leaves no ICU entry point in the code a worker runs (shared/, workers/): each would page its data back in', () => {
    const icu = /\.localeCompare\(|\.toLocale\w*\(|\bIntl\./;
    const found: string[] = [];
    for (const folder of ['shared', 'workers']) {
      for (const file of readdirSync(path.join(ROOT, folder), { recursive: true, encoding: 'utf8' })) {
        if (!file.endsWith('.ts')) continue;
        const lines = readFileSync(path.join(ROOT, folder, file), 'utf8').split('\n');
        lines.forEach((line, i) => {
          const code = line.replace(/\/\/.*$/, '');
          if (!/^\s*\*/.test(code) && icu.test(code)) found.push(`${folder}/${file}:${i + 1}: ${line.trim()}`);
        });
      }
    }
    expect(found).toEqual([]);
  });
});
