/**
 * V8 flags for a worker process. A worker spends its life waiting on the model, git and shells,
 * and runs several agents at once: memory matters more than peak JIT speed. Measured on 4 agents
 * over a 20,000-file repository (npm run bench, worker_rss_mb), these take the idle process from
 * about 120 MB to about 90 MB: a smaller young generation and a heap tuned for size.
 */
export const WORKER_NODE_FLAGS = ['--optimize-for-size', '--max-semi-space-size=2'];

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
