import { spawnGroup, type ProcessGroup } from '../runtime/processGroup.js';
import { expandVariables } from './expandVariables.js';
import type { HookRawResult, HookRunOptions } from './hookOutput.js';
import type { CommandHook } from './hooksConfig.js';

/** Output kept per stream; a hook that prints more is cut, and says so. */
const MAX_OUTPUT_CHARS = 1_000_000;
/** How long output is still read after the hook process exited. */
const OUTPUT_GRACE_MS = 2_000;

/**
 * Runs one command hook: `bash -c <command>` (or `command` with `args`, no shell) in its own
 * process group (runtime/processGroup.ts), with the input JSON on stdin. On timeout or abort the
 * whole group is killed at once; when the hook is done, anything it left running is stopped too, so
 * nothing the hook started outlives it.
 */
export async function runCommandHook(hook: CommandHook, inputJson: string, options: HookRunOptions): Promise<HookRawResult> {
  const [file, args] = hook.args ? [hook.command, hook.args.map((arg) => expandVariables(arg, options.env))] : ['bash', ['-c', hook.command]];
  let group: ProcessGroup;
  try {
    group = await spawnGroup(file, args, { cwd: options.cwd, env: options.env, stdin: inputJson });
  } catch (error) {
    return { kind: 'failed', message: `could not start the hook: ${error instanceof Error ? error.message : String(error)}`, exitCode: null, stdout: '', stderr: '' };
  }
  const { child } = group;
  const stdout = collector();
  const stderr = collector();
  child.stdout.on('data', stdout.add);
  child.stderr.on('data', stderr.add);

  let killedFor: 'timeout' | 'abort' | undefined;
  const killGroup = (why: 'timeout' | 'abort') => {
    if (killedFor) return;
    killedFor = why;
    void group.kill(0).catch(() => undefined); // a survivor is reported by the kill below
  };
  const timer = setTimeout(() => killGroup('timeout'), options.timeoutMs);
  const onAbort = () => killGroup('abort');
  if (options.signal.aborted) onAbort();
  else options.signal.addEventListener('abort', onAbort, { once: true });

  try {
    // `close` comes once the output is all read. A process the hook left behind can hold the
    // pipes open after the hook itself exited: then reading stops after a grace period.
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
      child.once('close', (code: number | null, signal: NodeJS.Signals | null) => resolve([code, signal]));
      void group.exited.then(({ code, signal }) => {
        setTimeout(() => {
          child.stdout.destroy();
          child.stderr.destroy();
          resolve([code, signal]);
        }, OUTPUT_GRACE_MS).unref();
      });
    });
    const out = { stdout: stdout.text(), stderr: stderr.text() };
    if (killedFor === 'timeout') return { kind: 'timeout', timeoutMs: options.timeoutMs, ...out };
    if (killedFor === 'abort') return { kind: 'failed', message: 'the hook was killed: the session was aborted', exitCode: null, ...out };
    if (code === null) return { kind: 'failed', message: `the hook was killed by ${signal ?? 'a signal'}`, exitCode: null, ...out };
    return { kind: 'exited', exitCode: code, ...out };
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener('abort', onAbort);
    await group.kill();
  }
}

function collector() {
  const chunks: Buffer[] = [];
  let size = 0;
  let cut = false;
  return {
    add: (chunk: Buffer) => {
      if (size >= MAX_OUTPUT_CHARS) {
        cut = true;
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
    },
    text: () => {
      const text = Buffer.concat(chunks).toString('utf8');
      return cut || text.length > MAX_OUTPUT_CHARS ? `${text.slice(0, MAX_OUTPUT_CHARS)}\n[output cut at ${MAX_OUTPUT_CHARS} characters]` : text;
    },
  };
}
