import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

/** How long a start runs before its cache is made (unless it exits first): its start is compiled by then. */
const CACHE_AFTER_MS = 1_000;

/** The CLI's exit code for bad input (docs/cli.md). */
const BAD_INPUT = 2;

/**
 * How a start found its code cache: used, made for the first time, made again because V8 refused
 * the one it found, or left alone under --enable-source-maps.
 */
export type CodeCacheUse = 'accepted' | 'absent' | 'rejected' | 'source-maps';

/**
 * Runs the CLI's CommonJS bundle (scripts/bundle-cli.mjs) with V8's code cache, kept beside it.
 *
 * Why by hand: Node 20 caches no compiled module (`module.enableCompileCache` is Node 22's), and
 * V8 compiling the bundle's 6 MB at each start took 70 ms here, against 14 ms to read its cache
 * (docs/benchmarks.md, "The CLI as one bundle"). `v8-compile-cache`, the library for it, keeps its
 * files in the shared temp folder, which another user or an agent's process could write first: a
 * cache is code V8 runs. This one is kept only beside the bundle, as trusted as the bundle itself
 * (read-only to agents, as orca's installation is), and written nowhere else.
 *
 * A cache holds what its run compiled: each command has its own (`orca agent`'s with the queue's
 * and the job's code, 2.4 MB; `--version`'s with little but the command table), made by the
 * command's first start a second in or as it exits, whichever comes first (a run goes on for
 * minutes: its start is what the cache is for), after which its starts compile only what it had
 * not run by then.
 *
 * V8 refuses a cache made by another version of itself or with other flags, but knows the source
 * only by its length: `build`, the bundle's hash written into the entry by the build, is in the
 * file's name, so a cache is never given to another bundle. Each Node version and set of flags
 * gets its own file too, so runs with other flags do not take turns writing one. A refused cache
 * is made again; where the folder is not writable (an installation owned by another user) the
 * start compiles the bundle as it would without one.
 */
export function runCachedBundle(bundle: string, build: string, command = process.argv[2] ?? ''): CodeCacheUse {
  // Node maps the stack frames of what its own loader compiled, not a vm.Script's: under
  // --enable-source-maps (a stack trace in orca's TypeScript) the bundle is required, without a cache.
  if (process.sourceMapsEnabled) {
    createRequire(bundle)(bundle);
    return 'source-maps';
  }
  const file = cacheFile(bundle, build, command);
  const cached = readCache(file);
  // The build leaves it ASCII (scripts/bundle-cli.mjs): read as latin1, 6 MB take a third of their time as UTF-8.
  const script = new vm.Script(Module.wrap(readFileSync(bundle, 'latin1')), {
    filename: bundle,
    cachedData: cached,
    // The bundle's import() of a package left outside it (piscina, pino): Node's own loader, from the bundle's folder.
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const use: CodeCacheUse = !cached ? 'absent' : script.cachedDataRejected ? 'rejected' : 'accepted';
  if (use !== 'accepted') makeCacheOnce(script, file);
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  const module = { exports: {} };
  wrapper.call(module.exports, module.exports, createRequire(bundle), module, bundle, path.dirname(bundle));
  return use;
}

/**
 * The cache's file for a command of this build, this Node and these flags, beside the bundle:
 * `cli.bundle.cjs.agent.<key>.cache`. A first word that is not a command's (`--help`, `-V`)
 * shares one file; a misspelt command makes none (it exits as bad input).
 */
export function cacheFile(bundle: string, build: string, command: string, env: NodeJS.ProcessEnv = process.env): string {
  const key = [build, process.version, process.arch, ...process.execArgv, env.NODE_OPTIONS ?? ''].join('\0');
  return `${bundle}.${/^[a-z]+$/.test(command) ? command : 'other'}.${fnv1a(key)}.cache`;
}

/** After the start has run for CACHE_AFTER_MS, or as the process exits if sooner. */
function makeCacheOnce(script: vm.Script, file: string): void {
  let made = false;
  const make = () => {
    if (made) return;
    made = true;
    writeCache(script, file);
  };
  setTimeout(make, CACHE_AFTER_MS).unref();
  // Refused as bad input (exit 2: a misspelt command among them), a start ran nothing worth keeping.
  process.once('exit', (code) => code !== BAD_INPUT && make());
}

function readCache(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    // No cache (or none this user may read): the bundle is compiled from its source, as without one.
    return undefined;
  }
}

function writeCache(script: vm.Script, file: string): void {
  const partial = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(partial, script.createCachedData());
    // Whole or not at all: a start reading it meanwhile sees the old file or the new one.
    renameSync(partial, file);
  } catch {
    // A folder this user may not write (an installation owned by another): the next start compiles, as this one did.
    rmSync(partial, { force: true });
  }
}

/** 32-bit FNV-1a, in hex: a file name per Node version and flags, not a check (V8 checks the cache itself). */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}
