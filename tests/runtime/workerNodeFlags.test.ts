import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { WORKER_NODE_FLAGS } from '../../shared/core/runtime/workerNodeFlags.js';

/** Runs `code` in a Node started with the worker's flags (and V8's natives syntax, to ask it about a function). */
function underWorkerFlags(code: string): { stdout: string; stderr: string; status: number | null } {
  const run = spawnSync(process.execPath, [...WORKER_NODE_FLAGS, '--allow-natives-syntax', '-e', code], { encoding: 'utf8' });
  return { stdout: run.stdout.trim(), stderr: run.stderr.trim(), status: run.status };
}

describe("the worker process's V8 flags", () => {
  it('stop the JIT below TurboFan: a function asked to be optimized stays unoptimized', () => {
    // %GetOptimizationStatus's bit 4 (16) is "TurboFanned"; bit 5 (32) is "interpreted".
    const run = underWorkerFlags(`
      function add(a, b) { return a + b; }
      %PrepareFunctionForOptimization(add);
      add(1, 2); add(3, 4);
      %OptimizeFunctionOnNextCall(add);
      add(5, 6);
      console.log(%GetOptimizationStatus(add));
    `);
    expect(run.status, run.stderr).toBe(0);
    expect(Number(run.stdout) & 16).toBe(0);
  });

  it('keep WebAssembly, which fetch needs (undici parses HTTP with it): no --jitless or --lite-mode', () => {
    const run = underWorkerFlags(`console.log(typeof WebAssembly)`);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toBe('object');
    // V8 says when flags conflict (e.g. "disabling flag --expose_wasm"): the worker's set has none.
    expect(run.stderr).toBe('');
  });
});
