import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach } from 'vitest';
import { compiledEntry, packageRoot } from '../../shared/core/runtime/compiledEntry.js';
// Imported for its afterEach too: registered before ours, it runs after ours, once the processes are gone.
import type { OrcaTestEnv } from '../support/orcaEnv.js';
import { waitFor } from './waitFor.js';

/** A long-lived orca command (`orca serve`, `orca run`) in a test's env, its output kept. */
export class OrcaProcess {
  output = '';
  readonly exited: Promise<number | null>;

  constructor(readonly child: ChildProcess) {
    child.stdout?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.exited = once(child, 'exit').then(([code]) => code as number | null);
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The first match of `pattern` in what the process printed, waiting for it to show. */
  async printed(pattern: RegExp): Promise<RegExpExecArray> {
    await waitFor(
      () => pattern.test(this.output) || !this.running,
      () => this.output,
    );
    const match = pattern.exec(this.output);
    if (!match) throw new Error(`the process ended without printing ${pattern}:\n${this.output}`);
    return match;
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (this.running) this.child.kill(signal);
    return this.exited;
  }
}

const started: OrcaProcess[] = [];

/** Starts `orca ARGS` from dist/ in the env; whatever is still running after the test is stopped. */
export function startOrca(env: OrcaTestEnv, args: string[], extraEnv: NodeJS.ProcessEnv = {}): OrcaProcess {
  const child = spawn(process.execPath, [compiledEntry('coordinator/cli.ts'), ...args], {
    cwd: packageRoot(),
    env: env.processEnv(extraEnv),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const process_ = new OrcaProcess(child);
  started.push(process_);
  return process_;
}

/** `orca serve --port 0` in the env; resolves with the board's address once it listens. */
export async function startServe(env: OrcaTestEnv): Promise<{ url: string; server: OrcaProcess }> {
  const server = startOrca(env, ['serve', '--port', '0']);
  const [, url] = await server.printed(/orca: board at (http:\/\/\S+\/)/);
  return { url: url!, server };
}

afterEach(async () => {
  // Runs first (their workers append to Redis), the env's own cleanup after.
  for (const process_ of started.splice(0).reverse()) {
    if ((await Promise.race([process_.stop(), new Promise((resolve) => setTimeout(() => resolve('late'), 30_000))])) === 'late') {
      await process_.stop('SIGKILL');
    }
  }
});
