import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import type { Piscina } from 'piscina';
import { compiledEntry } from '../../core/runtime/compiledEntry.js';
import type { GrepBatch, GrepBatchResult } from './grepWorker.js';

/** Idle threads exit after this long; the pool starts them again on the next search. */
const IDLE_MS = 10_000;

let pool: Promise<Piscina<GrepBatch, GrepBatchResult>> | undefined;

/**
 * The one worker pool of this process for the JS Grep fallback, created on first use. It holds
 * no thread while idle (minThreads 0) and piscina unrefs idle threads, so it never keeps the
 * process alive. piscina itself is imported then: only a host without rg searches with it, and
 * loading it costs every worker about 38 ms and 5.8 MB at start (a bare Node's import of it).
 */
export function grepPool(): Promise<Piscina<GrepBatch, GrepBatchResult>> {
  pool ??= import('piscina').then(
    ({ Piscina }) =>
      new Piscina<GrepBatch, GrepBatchResult>({
        filename: pathToFileURL(compiledEntry('shared/tools/search/grepWorker.ts')).href,
        minThreads: 0,
        maxThreads: Math.max(1, availableParallelism()),
        idleTimeout: IDLE_MS,
      }),
  );
  return pool;
}
