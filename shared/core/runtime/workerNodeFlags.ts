/**
 * V8 flags for a worker process. A worker spends its life waiting on the model, git and shells,
 * and runs several agents at once: memory matters more than peak JIT speed. Each is measured on 4
 * agents over a 20,000-file repository (npm run bench -- --only rss, worker_rss_mb; docs/benchmarks.md):
 * - `--optimize-for-size`, `--max-semi-space-size=2`: a heap tuned for size and a small young
 *   generation took the idle process from about 120 MB to about 90 MB.
 * - `--no-opt`: no TurboFan. Its compiled code, its compile jobs' zone memory (malloc'd, and
 *   kept resident by the allocator) and its deoptimization data took 11.4 MB off the peak and
 *   10.1 off the idle worker (113.2 → 101.8 and 81.0 → 70.9, medians of 3 alternating runs), and
 *   cost no CPU that the same runs could see (the worker's own CPU for the 4 agents 8,300 → 8,180
 *   ms): its hot paths are git's and rg's output, JSON and Redis replies, not long JS loops, and
 *   Sparkplug's baseline code still runs them. Not `--jitless` or `--lite-mode`: they take
 *   WebAssembly away, which fetch needs (undici parses HTTP with it).
 */
export const WORKER_NODE_FLAGS = ['--optimize-for-size', '--max-semi-space-size=2', '--no-opt'];

/** Set beside MALLOC_ARENA_MAX when orca, not the user, chose it: the worker takes both out again. */
const ORCA_SET_ARENAS = 'ORCA_WORKER_MALLOC_ARENAS';

/**
 * The environment a worker process is started with: `env` and glibc's malloc held to two arenas.
 * A worker's threads (libuv's pool, V8's GC helpers) each get an arena of their own by default,
 * and their freed memory stays resident in them: with 4 agents on 20,000 files the peak fell from
 * 121.7 to 115.4 MB (issue 35, alternating runs). A MALLOC_ARENA_MAX the user set stands.
 * glibc reads it once, at the process's start, so it cannot be set from inside the worker.
 */
export function workerProcessEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (env.MALLOC_ARENA_MAX !== undefined) return env;
  return { ...env, MALLOC_ARENA_MAX: '2', [ORCA_SET_ARENAS]: '1' };
}

/**
 * Called first in the worker: the arena limit orca set leaves its environment (glibc has read it),
 * so git, the shells and the agents' commands get the user's environment, not orca's allocator choice.
 */
export function dropWorkerProcessEnv(env: NodeJS.ProcessEnv = process.env): void {
  if (env[ORCA_SET_ARENAS] !== '1') return;
  delete env.MALLOC_ARENA_MAX;
  delete env[ORCA_SET_ARENAS];
}
