import { spawn } from 'node:child_process';
import { expandVariables } from './expandVariables.js';
import type { HookRawResult, HookRunOptions } from './hookOutput.js';
import type { CommandHook } from './hooksConfig.js';

/** Output kept per stream; a hook that prints more is cut, and says so. */
const MAX_OUTPUT_CHARS = 1_000_000;
/** How long output is still read after the hook process exited. */
const OUTPUT_GRACE_MS = 2_000;

/**
 * Runs one command hook: `bash -c <command>` (or `command` with `args`, no shell) in its own
 * process group, with the input JSON on stdin. On timeout or abort the whole group is killed, so
 * nothing the hook started outlives it.
 */
export function runCommandHook(hook: CommandHook, inputJson: string, options: HookRunOptions): Promise<HookRawResult> {
  return new Promise((resolve) => {
    const [file, args] = hook.args ? [hook.command, hook.args.map((arg) => expandVariables(arg, options.env))] : ['bash', ['-c', hook.command]];
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      // Its own process group: a timeout kills the hook and every process it started.
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const stdout = collector();
    const stderr = collector();
    child.stdout.on('data', stdout.add);
    child.stderr.on('data', stderr.add);

    let settled = false;
    let killedFor: 'timeout' | 'abort' | undefined;
    const killGroup = (why: 'timeout' | 'abort') => {
      if (killedFor || child.pid === undefined) return;
      killedFor = why;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group is already gone.
      }
    };
    const timer = setTimeout(() => killGroup('timeout'), options.timeoutMs);
    const onAbort = () => killGroup('abort');
    if (options.signal.aborted) onAbort();
    else options.signal.addEventListener('abort', onAbort, { once: true });

    let grace: NodeJS.Timeout | undefined;
    const finish = (result: HookRawResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(grace);
      options.signal.removeEventListener('abort', onAbort);
      resolve(result);
    };

    const conclude = (code: number | null, signal: NodeJS.Signals | null) => {
      const out = { stdout: stdout.text(), stderr: stderr.text() };
      if (killedFor === 'timeout') return finish({ kind: 'timeout', timeoutMs: options.timeoutMs, ...out });
      if (killedFor === 'abort') return finish({ kind: 'failed', message: 'the hook was killed: the session was aborted', exitCode: null, ...out });
      if (code === null) return finish({ kind: 'failed', message: `the hook was killed by ${signal ?? 'a signal'}`, exitCode: null, ...out });
      finish({ kind: 'exited', exitCode: code, ...out });
    };

    child.on('error', (error) => {
      finish({ kind: 'failed', message: `could not start the hook: ${error.message}`, exitCode: null, stdout: stdout.text(), stderr: stderr.text() });
    });
    // `close` comes once the output is all read. A process the hook left behind can hold the
    // pipes open after the hook itself exited: then stop reading after a grace period.
    child.on('close', conclude);
    child.on('exit', (code, signal) => {
      grace = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        conclude(code, signal);
      }, OUTPUT_GRACE_MS);
    });

    // A hook may exit without reading its input; the broken pipe that follows is not an error.
    child.stdin.on('error', () => {});
    child.stdin.end(inputJson);
  });
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
