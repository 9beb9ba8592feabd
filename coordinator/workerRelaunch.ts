import { spawn } from 'node:child_process';
import { compiledEntry } from '../shared/core/runtime/compiledEntry.js';
import { WORKER_NODE_FLAGS, workerProcessEnv } from '../shared/core/runtime/workerNodeFlags.js';

/** Whether this process runs with the V8 flags a worker wants (they can only be given at start). */
export function hasWorkerNodeFlags(): boolean {
  return WORKER_NODE_FLAGS.every((flag) => process.execArgv.includes(flag));
}

/**
 * `orca worker` started without the worker's V8 flags runs the worker in a child that has them:
 * this process only passes signals on (the child hands its jobs back on SIGTERM and SIGINT) and
 * ends as the child ends, with its exit code.
 */
export async function relaunchWorker(args: string[]): Promise<number> {
  const child = spawn(process.execPath, [...process.execArgv, ...WORKER_NODE_FLAGS, compiledEntry('workers/main.ts'), ...args], {
    // The IPC channel ties the child to this process: should this one die (even by SIGKILL), the
    // channel closes and the worker stops, handing its jobs back (workers/workerProcess.ts).
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: workerProcessEnv(process.env),
  });
  const forward = (signal: NodeJS.Signals) => () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((signal) => [signal, forward(signal)] as const);
  for (const [signal, handler] of handlers) process.on(signal, handler);
  try {
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (exitCode, exitSignal) => resolve([exitCode, exitSignal]));
    });
    if (code !== null) return code;
    return signal === 'SIGINT' ? 130 : 1;
  } finally {
    for (const [signal, handler] of handlers) process.off(signal, handler);
  }
}
