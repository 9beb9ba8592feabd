import { quote } from 'shell-quote';
import { type ProcessGroup, spawnGroup } from '../../core/runtime/processGroup.js';
import { expandVariables } from './expandVariables.js';
import type { HookRawResult, HookRunOptions } from './hookOutput.js';
import type { CommandHook } from './hooksConfig.js';

/** Output kept per stream; a hook that prints more is cut, and says so. */
const MAX_OUTPUT_CHARS = 1_000_000;

/**
 * Runs one command hook: `bash -c <command>` (or `command` with `args`, no shell) in its own
 * process group (runtime/processGroup.ts), with the input JSON on stdin. On timeout or abort the
 * whole group is killed at once; when the hook is done, anything it left running is stopped too, so
 * nothing the hook started outlives it.
 */
export async function runCommandHook(hook: CommandHook, inputJson: string, options: HookRunOptions): Promise<HookRawResult> {
  const [plainFile, plainArgs] = hook.args
    ? [hook.command, hook.args.map((arg) => expandVariables(arg, options.env))]
    : ['bash', ['-c', hook.command]];
  // In the sandbox the hook is a shell command like Bash's: a hook with `args` is quoted into one.
  const wrapped = options.wrap?.(hook.args ? quote([plainFile, ...plainArgs]) : hook.command, options.cwd);
  const [file, args] = wrapped ? [wrapped.file, wrapped.args] : [plainFile, plainArgs];
  let group: ProcessGroup;
  try {
    group = await spawnGroup(file, args, { cwd: options.cwd, env: options.env, stdin: inputJson });
  } catch (error) {
    return {
      kind: 'failed',
      message: `could not start the hook: ${error instanceof Error ? error.message : String(error)}`,
      exitCode: null,
      stdout: '',
      stderr: '',
    };
  }
  const { child } = group;
  const stdout = collector();
  const stderr = collector();
  child.stdout.on('data', stdout.add);
  child.stderr.on('data', stderr.add);
  // No grace for a hook past its time, nor for what it left running once it answered.
  const stoppedBy = await group.waitForEnd({ timeoutMs: options.timeoutMs, signal: options.signal, graceMs: 0 });
  const { code, signal } = await group.exited;
  // A process that left the group can hold the pipes open: then reading stops after a grace period.
  if (!(await group.outputClosedWithin())) {
    child.stdout.destroy();
    child.stderr.destroy();
  }
  const out = { stdout: stdout.text(), stderr: stderr.text() };
  if (stoppedBy === 'timeout') return { kind: 'timeout', timeoutMs: options.timeoutMs, ...out };
  if (stoppedBy === 'abort') return { kind: 'failed', message: 'the hook was killed: the session was aborted', exitCode: null, ...out };
  if (code === null) return { kind: 'failed', message: `the hook was killed by ${signal ?? 'a signal'}`, exitCode: null, ...out };
  return { kind: 'exited', exitCode: code, ...out };
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
      return cut || text.length > MAX_OUTPUT_CHARS
        ? `${text.slice(0, MAX_OUTPUT_CHARS)}\n[output cut at ${MAX_OUTPUT_CHARS} characters]`
        : text;
    },
  };
}
