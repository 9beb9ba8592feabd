import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compiledEntry } from '../../shared/core/runtime/compiledEntry.js';

// The CLI the tests and users run: esbuild's CommonJS bundle of tsc's entry, and an entry that runs it (scripts/bundle-cli.mjs).
const ENTRY = compiledEntry('coordinator/cli.ts');
const BUNDLE = path.join(path.dirname(ENTRY), 'cli.bundle.cjs');
const bundled = () => readFileSync(BUNDLE, 'latin1');
// What the bundle script writes for a module's own location: the file, relative to the bundle.
const OWN_URL = /new URL\(("[^"]*"), __orcaBundleUrl\)/g;

describe('the CLI as one bundle (scripts/bundle-cli.mjs)', () => {
  it("is one CommonJS bundle, run by an entry that names its build (the code cache's key)", () => {
    expect(readFileSync(ENTRY, 'utf8')).toMatch(
      /runCachedBundle\(fileURLToPath\(new URL\('\.\/cli\.bundle\.cjs', import\.meta\.url\)\), '[0-9a-f]{16}'\);/,
    );
    // Lazily imported commands are in it, initialised when imported.
    expect(bundled()).toMatch(/var init_agentCommandRun = __esm\(/);
  });

  it('is strict, as the ES modules it was made of were: the directive is its first statement', () => {
    const text = bundled();
    expect(text.startsWith('\n"use strict";'), text.slice(0, 80)).toBe(true);
  });

  it('is ASCII, as its entry reads it (latin1): what esbuild left as written in comments and regular expressions is escaped', () => {
    const text = readFileSync(BUNDLE);
    expect(text.findIndex((byte) => byte > 0x7f)).toBe(-1);
    // The injection patterns' Chinese, in a regular expression, escaped and still the same characters.
    expect(bundled()).toContain('/\\u5ffd\\u7565(');
  });

  it("maps back to orca's TypeScript (through tsc's maps), for --enable-source-maps", () => {
    const map = JSON.parse(readFileSync(`${BUNDLE}.map`, 'utf8')) as { sources: string[] };
    const own = map.sources.filter((source) => !source.includes('node_modules'));
    expect(own.filter((source) => !source.endsWith('.ts'))).toEqual([]);
    // `orca agent` alone bundles about 370 of orca's modules.
    expect(own.length).toBeGreaterThan(300);
  });

  it("gives every module its own file's location, which exists: prompts, scripts and package files are found", () => {
    let locations = 0;
    for (const match of bundled().matchAll(OWN_URL)) {
      const relative = JSON.parse(match[1]!) as string;
      expect(existsSync(path.resolve(path.dirname(BUNDLE), relative)), relative).toBe(true);
      locations += 1;
    }
    // loadDescription's callers alone are over forty: a rewrite that stopped matching would find none.
    expect(locations).toBeGreaterThan(40);
  });

  it('leaves no module with an import.meta of its own: a CommonJS bundle has none, esbuild would make it empty', () => {
    expect(bundled()).not.toMatch(/\bimport_meta\d*\b/);
    expect(bundled()).not.toContain('import.meta');
  });

  it('starts: every command is in its table, and its version is the package’s', () => {
    const help = execFileSync(process.execPath, [ENTRY, '--help'], { encoding: 'utf8', timeout: 60_000 });
    for (const command of ['run', 'agent', 'worker', 'status', 'board', 'serve', 'abort', 'clean', 'memory', 'prompt', 'resume'])
      expect(help).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    const version = execFileSync(process.execPath, [ENTRY, '--version'], { encoding: 'utf8', timeout: 60_000 }).trim();
    expect(version).toBe((JSON.parse(readFileSync(path.resolve('package.json'), 'utf8')) as { version: string }).version);
  });
});
