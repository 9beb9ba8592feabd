import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { cacheFile } from '../../shared/core/runtime/cachedBundle.js';
import { compiledEntry } from '../../shared/core/runtime/compiledEntry.js';
import { tempDir } from '../support/tempDir.js';

// The entry the build writes, in small: a process that runs a bundle through runCachedBundle and says how it found its cache.
const RUNNER = `
import { runCachedBundle } from ${JSON.stringify(pathToFileURL(compiledEntry('shared/core/runtime/cachedBundle.ts')).href)};
const [bundle, build, command] = process.argv.slice(2);
process.stderr.write(runCachedBundle(bundle, build, command));
`;

// A bundle as esbuild writes one: strict, CommonJS, with Node's modules and a package beside it.
const BUNDLE = `"use strict";
const path = require("node:path");
let sloppy = "strict";
try { undeclared = 1; sloppy = "sloppy"; } catch {}
process.stdout.write([sloppy, path.basename(__filename), __dirname === path.dirname(__filename), typeof module.exports].join(" "));
if (process.env.IMPORT_PACKAGE) import("beside").then((m) => process.stdout.write(" " + m.name));
if (process.env.LINGER) setInterval(() => {}, 1000);
if (process.env.BAD_INPUT) process.exitCode = 2;
`;

function setUp(): { dir: string; bundle: string; runner: string } {
  const dir = tempDir('orca-cached-bundle-');
  const bundle = path.join(dir, 'cli.bundle.cjs');
  writeFileSync(bundle, BUNDLE);
  const runner = path.join(dir, 'entry.mjs');
  writeFileSync(runner, RUNNER);
  return { dir, bundle, runner };
}

function start(runner: string, bundle: string, build: string, command: string, env: NodeJS.ProcessEnv = {}) {
  const out = execFileSync(process.execPath, [runner, bundle, build, command], {
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return out;
}

/** How the start found its cache (the runner's stderr) and what the bundle wrote. */
function startSaying(runner: string, bundle: string, build: string, command: string, env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, [runner, bundle, build, command], {
    env: { ...process.env, NODE_OPTIONS: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return {
    child,
    done: once(child, 'close').then(([code]) => ({ code: code as number | null, stdout, stderr })),
  };
}

/** The cache's file as the runner's process names it: no flags, no NODE_OPTIONS. */
function cacheOf(bundle: string, build: string, command: string): string {
  const flagless = { ...process.env, NODE_OPTIONS: '' };
  const argv = process.execArgv;
  try {
    Object.defineProperty(process, 'execArgv', { value: [], configurable: true });
    return cacheFile(bundle, build, command, flagless);
  } finally {
    Object.defineProperty(process, 'execArgv', { value: argv, configurable: true });
  }
}

describe("the CLI's bundle run with V8's code cache (cachedBundle.ts)", () => {
  it('runs the bundle as a strict CommonJS module of its own file, and makes its cache as the first start exits', async () => {
    const { bundle, runner } = setUp();
    const first = await startSaying(runner, bundle, 'b1', 'agent').done;
    expect(first).toMatchObject({ code: 0, stdout: 'strict cli.bundle.cjs true object', stderr: 'absent' });
    expect(existsSync(cacheOf(bundle, 'b1', 'agent'))).toBe(true);
    const second = await startSaying(runner, bundle, 'b1', 'agent').done;
    expect(second).toMatchObject({ code: 0, stdout: 'strict cli.bundle.cjs true object', stderr: 'accepted' });
  });

  it('keeps a cache per command, per build and per set of flags: none is given to another', async () => {
    const { bundle, runner } = setUp();
    start(runner, bundle, 'b1', 'agent');
    expect((await startSaying(runner, bundle, 'b1', 'run').done).stderr).toBe('absent');
    // Another build of the same length: V8 alone would take the old cache for it.
    expect((await startSaying(runner, bundle, 'b2', 'agent').done).stderr).toBe('absent');
    expect((await startSaying(runner, bundle, 'b1', 'agent', { NODE_OPTIONS: '--max-old-space-size=300' }).done).stderr).toBe('absent');
    expect((await startSaying(runner, bundle, 'b1', 'agent').done).stderr).toBe('accepted');
    // `--help` and `-V`: one file for both, not one each; a misspelt command, refused as bad input, none.
    start(runner, bundle, 'b1', '--help');
    expect((await startSaying(runner, bundle, 'b1', '-V').done).stderr).toBe('accepted');
    expect((await startSaying(runner, bundle, 'b1', 'hepl', { BAD_INPUT: '1' }).done).code).toBe(2);
    expect((await startSaying(runner, bundle, 'b1', 'hepl').done).stderr).toBe('absent');
    expect(readdirSync(path.dirname(bundle)).filter((name) => name.endsWith('.cache'))).toHaveLength(6);
  });

  it('makes a refused cache again: one V8 will not take (here, not a cache at all) is written over', async () => {
    const { bundle, runner } = setUp();
    writeFileSync(cacheOf(bundle, 'b1', 'agent'), 'not a code cache');
    expect((await startSaying(runner, bundle, 'b1', 'agent').done).stderr).toBe('rejected');
    expect((await startSaying(runner, bundle, 'b1', 'agent').done).stderr).toBe('accepted');
  });

  it('makes the cache of a start that goes on a second in, before it ends: a run killed later still leaves it', async () => {
    const { bundle, runner } = setUp();
    const lingering = startSaying(runner, bundle, 'b1', 'run', { LINGER: '1' });
    const file = cacheOf(bundle, 'b1', 'run');
    while (!existsSync(file)) await new Promise((resolve) => setTimeout(resolve, 50));
    lingering.child.kill('SIGKILL');
    expect((await lingering.done).stderr).toBe('absent');
    expect((await startSaying(runner, bundle, 'b1', 'run').done).stderr).toBe('accepted');
  });

  it('runs on when its cache cannot be written, and leaves no partial file behind', async () => {
    const { dir, bundle, runner } = setUp();
    // A folder where the file would go: nothing can be read from it or renamed over it (as root, a read-only folder would not stop the write).
    mkdirSync(path.join(cacheOf(bundle, 'b1', 'agent'), 'in-the-way'), { recursive: true });
    const run = await startSaying(runner, bundle, 'b1', 'agent').done;
    expect(run).toMatchObject({ code: 0, stdout: 'strict cli.bundle.cjs true object', stderr: 'absent' });
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it("under --enable-source-maps requires the bundle as Node's loader would, so its stack traces name the sources", async () => {
    const { dir, runner } = setUp();
    const source = path.join(dir, 'thrower.ts');
    writeFileSync(source, "export function boom(): never {\n  throw new Error('boom');\n}\nboom();\n");
    const bundle = path.join(dir, 'thrower.cjs');
    await build({
      entryPoints: [source],
      bundle: true,
      format: 'cjs',
      platform: 'node',
      outfile: bundle,
      sourcemap: true,
      logLevel: 'error',
    });
    const run = await startSaying(runner, bundle, 'b1', 'agent', { NODE_OPTIONS: '--enable-source-maps' }).done;
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/at boom \(.*thrower\.ts:2:9\)/);
    expect(readdirSync(dir).filter((name) => name.endsWith('.cache'))).toEqual([]);
  });

  it("imports a package left outside the bundle with Node's own loader, from the bundle's folder", async () => {
    const { dir, bundle, runner } = setUp();
    const pkg = path.join(dir, 'node_modules', 'beside');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'beside', type: 'module', exports: './index.js' }));
    writeFileSync(path.join(pkg, 'index.js'), 'export const name = "beside";\n');
    const run = await startSaying(runner, bundle, 'b1', 'serve', { IMPORT_PACKAGE: '1' }).done;
    expect(run).toMatchObject({ code: 0, stdout: 'strict cli.bundle.cjs true object beside' });
  });
});
