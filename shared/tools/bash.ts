import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { ToolError } from '../core/boundary/toolError.js';
import { agentShellEnv } from '../core/runtime/agentEnv.js';
import { type CaptureLimits, DEFAULT_CAPTURE_LIMITS, OutputCapture } from '../core/runtime/outputCapture.js';
import { DEFAULT_KILL_GRACE_MS, type LeaderExit, type ProcessGroup, spawnShellGroup } from '../core/runtime/processGroup.js';
import { readOnlyDependencyNote } from '../core/runtime/readOnlyDependencies.js';
import type { BashResultData } from '../core/tool/bashResultData.js';
import { stopReason } from '../core/tool/callStopped.js';
import { DEFAULT_RESULT_LIMIT } from '../core/tool/resultBudget.js';
import { defineTool, loadDescription, type ToolContext, type ToolOutput } from '../core/tool/tool.js';
import { bashLevel, isReadOnlyBash } from '../policy/permissions/shell/bashLevel.js';
import { pipelineStages } from '../policy/permissions/shell/pipelineStages.js';
import { writeTool } from './write.js';

export const BASH_TOOL = 'Bash';

/** How long the status pipe is read after the shell exited, at most. */
const STATUS_WAIT_MS = 2_000;

export const BashInputSchema = z.strictObject({
  command: z
    .string()
    .refine((command) => command.trim() !== '', 'the command is empty: give the shell command to run')
    .describe('The command to execute'),
  timeout: z.number().int().positive().optional().describe('Optional timeout in milliseconds (max 600000)'),
  description: z.string().optional().describe('Clear, concise description of what this command does in 5-10 words, for display only'),
});
export type BashInput = z.infer<typeof BashInputSchema>;

export interface BashToolOptions {
  capture?: CaptureLimits;
  killGraceMs?: number;
}

/**
 * Bash runs one command in the workspace root, in its own process group, with stdin closed and
 * the session's environment (PORT, ORCA_PORTS, …) added to this process's. The rules:
 * - `timeout` defaults to ctx.shell.defaultTimeoutMs; above ctx.shell.maxTimeoutMs it is refused.
 * - Abort (ctx.signal) or timeout kills the whole group, grandchildren included, and the call
 *   fails with a ToolError carrying the output so far.
 * - However the call ends, nothing the command started outlives it: background jobs are killed
 *   too once the shell exits, and in bwrap the call returns only once its pid namespace is empty.
 * - A non-zero exit code or a death by signal is a result, not an error: the model must read it.
 * - Output past the capture's memory limit streams to a file in the session folder, named in the
 *   result; the pipeline's result budget then trims what the model is sent.
 * - The exit status of each stage of the command's last pipeline (the shell's PIPESTATUS) goes to
 *   the result's data, and with the stages' text when the command is one pipeline: the check in
 *   `npm test 2>&1 | tail` is judged on `npm test`'s status, not tail's (withPipeStatus).
 */
export function makeBashTool(options: BashToolOptions = {}) {
  const capture = options.capture ?? DEFAULT_CAPTURE_LIMITS;
  const graceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  return defineTool({
    name: BASH_TOOL,
    description: loadDescription(import.meta.url, './bash.txt'),
    input: BashInputSchema,
    // Judged from the parsed command: `git log | head` needs only read-only, `ls && rm x` needs full access.
    level: (input) => bashLevel(input.command),
    readOnly: (input) => isReadOnlyBash(input.command),
    resultLimit: DEFAULT_RESULT_LIMIT,
    family: 'run',
    // What a command writes (`> file`, `cp x dest`) is judged as a Write of that path.
    rule: { kind: 'command', field: 'command', writesAs: writeTool },
    results: { kind: 'command' },
    hookResponse: claudeCodeBashResponse,
    validate(input, ctx) {
      const max = ctx.shell.maxTimeoutMs;
      if (input.timeout !== undefined && input.timeout > max) {
        return (
          `timeout ${input.timeout} ms is above the maximum of ${max} ms (${minutes(max)}). ` +
          `Pass a timeout of at most ${max}, or leave it out for the default of ${ctx.shell.defaultTimeoutMs} ms.`
        );
      }
      return undefined;
    },
    call: (input, ctx) => runBash(input, ctx, capture, graceMs),
  });
}

export const bashTool = makeBashTool();

/** Claude Code's `tool_response` for a command: its output streams; hooks get the data as it is when it has none. */
async function claudeCodeBashResponse(data: unknown): Promise<unknown> {
  if (typeof data !== 'object' || data === null || !('stdout' in data) || !('stderr' in data)) return data;
  const { stdout, stderr } = data;
  if (typeof stdout !== 'string' || typeof stderr !== 'string') return data;
  return { stdout, stderr, interrupted: false, isImage: false, noOutputExpected: false };
}

async function runBash(input: BashInput, ctx: ToolContext, limits: CaptureLimits, graceMs: number): Promise<ToolOutput> {
  if (ctx.signal.aborted) throw new ToolError('Bash was not run: the session was aborted.');
  const timeoutMs = input.timeout ?? ctx.shell.defaultTimeoutMs;
  const group = await startCommand(withPipeStatus(input.command), ctx);
  const statusText = readStatusPipe(group.child.stdio[3] as Readable | null | undefined);
  const stem = path.join(ctx.session.dir, 'bash-output', `${Date.now()}-${randomBytes(4).toString('hex')}`);
  const stdout = new OutputCapture(group.child.stdout, `${stem}.stdout.txt`, limits);
  const stderr = new OutputCapture(group.child.stderr, `${stem}.stderr.txt`, limits);

  let stoppedBy: 'timeout' | 'abort' | undefined;
  try {
    stoppedBy = await group.waitForEnd({ timeoutMs, signal: ctx.signal, graceMs });
  } catch (error) {
    stdout.abandon();
    stderr.abandon();
    throw error;
  }
  const exit = await group.exited;
  const escaped = !(await group.outputClosedWithin());
  if (escaped) {
    stdout.abandon();
    stderr.abandon();
  }
  await Promise.all([stdout.finish(), stderr.finish()]);

  const output = formatOutput(stdout, stderr, escaped);
  const long = output.length > DEFAULT_RESULT_LIMIT ? ` ${sizeSummary(stdout, stderr)}` : '';
  const soFar = output === '' ? ' It printed nothing.' : `${long}\nOutput so far:\n${output}`;
  if (stoppedBy === 'timeout') {
    throw new ToolError(`Command timed out after ${timeoutMs} ms and was stopped, with every process it started.${soFar}`);
  }
  if (stoppedBy === 'abort') {
    throw new ToolError(`Command was aborted (${stopReason(ctx.signal)}); it was stopped, with every process it started.${soFar}`);
  }

  // Only the shell holds the pipe, and it has exited: the wait is bounded all the same.
  const pipeStatus = parsePipeStatus(await Promise.race([statusText, sleep(STATUS_WAIT_MS, '', { ref: false })]), exit);
  const stages = pipeStatus ? pipelineStages(input.command) : undefined;
  const pipeline =
    stages && pipeStatus && stages.length === pipeStatus.length
      ? stages.map((command, index) => ({ command, exitCode: pipeStatus[index]! }))
      : undefined;
  const status = exitStatus(exit, pipeline);
  // A sandboxed command that failed writing into node_modules is told why, and what to do.
  const note = ctx.shell.wrap && exit.code !== 0 ? readOnlyDependencyNote(output) : undefined;
  const body = `${output === '' ? '(no output)' : output}\n${status}${note ? `\n${note}` : ''}`;
  const data: BashResultData = {
    exitCode: exit.code,
    signal: exit.signal,
    stdoutBytes: stdout.bytes,
    stderrBytes: stderr.bytes,
    stdout: stdout.text().replace(/[\r\n]+$/, ''),
    stderr: stderr.text().replace(/[\r\n]+$/, ''),
    ...(pipeStatus ? { pipeStatus } : {}),
    ...(pipeline ? { pipeline } : {}),
  };
  if (stdout.overflowFile) data.outputFile = stdout.overflowFile;
  if (stderr.overflowFile) data.stderrFile = stderr.overflowFile;
  // The result budget previews only the start of a long result: say there how it ended.
  const content = body.length > DEFAULT_RESULT_LIMIT ? `[${status}. ${sizeSummary(stdout, stderr)}]\n${body}` : body;
  return { content, data };
}

/** The script started in its own group, in the sandbox when there is one. */
function startCommand(script: string, ctx: ToolContext): Promise<ProcessGroup> {
  // The model's commands never see orca's own credentials (ANTHROPIC_API_KEY and the like).
  const env = { ...agentShellEnv(), ...ctx.shell.env };
  return spawnShellGroup(script, ctx.shell.wrap, { cwd: ctx.workspace.root, env, statusPipe: true });
}

/** stdout, then a `[stderr]` section when there is any, each followed by a note when it was cut. */
function formatOutput(stdout: OutputCapture, stderr: OutputCapture, escaped: boolean): string {
  const parts: string[] = [];
  if (stdout.bytes > 0) parts.push(streamText(stdout, 'stdout'));
  if (stderr.bytes > 0) parts.push(`[stderr]\n${streamText(stderr, 'stderr')}`);
  if (escaped) {
    parts.push(
      "[A process that left the command's process group (setsid, a daemon) still held its output open; " +
        'it could not be stopped from here, and anything it prints from now on is lost.]',
    );
  }
  return parts.join('\n');
}

function streamText(capture: OutputCapture, name: string): string {
  const text = capture.text().replace(/[\r\n]+$/, '');
  if (!capture.cut) return text;
  const saved =
    capture.droppedBytes > 0
      ? `Its first ${capture.bytes - capture.droppedBytes} bytes are saved in ${capture.overflowFile}; the last ${capture.droppedBytes} bytes were discarded.`
      : `The whole ${name} is saved in ${capture.overflowFile}: Read it (with offset and limit) or Grep it.`;
  return `${text}\n[${name} is ${capture.bytes} bytes; only its first ${capture.keptBytes} bytes are in this result. ${saved}]`;
}

function sizeSummary(stdout: OutputCapture, stderr: OutputCapture): string {
  const one = (capture: OutputCapture, name: string) =>
    `${name} ${capture.bytes} bytes${capture.overflowFile ? ` (saved in ${capture.overflowFile})` : ''}`;
  return `Long output: ${one(stdout, 'stdout')}, ${one(stderr, 'stderr')}.`;
}

/** The exit code, and each stage's when a pipeline's stages did not all exit 0 (the shell reports only the last). */
function exitStatus(exit: LeaderExit, pipeline: BashResultData['pipeline']): string {
  if (exit.signal) return `Killed by signal ${exit.signal}`;
  const code = `Exit code: ${exit.code ?? 'unknown'}`;
  if (!pipeline || pipeline.length < 2 || pipeline.every((stage) => stage.exitCode === 0)) return code;
  return `${code} (pipeline stages: ${pipeline.map((stage) => `\`${stage.command}\` exited ${stage.exitCode}`).join(', ')})`;
}

/**
 * The command as bash runs it: in a group of its own with fd 3 closed (so nothing it starts holds
 * the status pipe open), then `$?` and PIPESTATUS written to fd 3 and the command's own exit code
 * kept. The command starts on the first line, so the shell's line numbers in errors stay its own;
 * a command that exits by itself (`exit 3`) leaves no status, and its exit code is what it is.
 */
function withPipeStatus(command: string): string {
  return `{ ${command}\n} 3>&-\n__orca_status=("$?" "\${PIPESTATUS[@]}"); printf '%s' "\${__orca_status[*]}" >&3 2>/dev/null; exit "\${__orca_status[0]}"`;
}

/** Everything written to the status pipe, once the shell closed it (at most a moment after it exits). */
function readStatusPipe(pipe: Readable | null | undefined): Promise<string> {
  if (!pipe) return Promise.resolve('');
  return new Promise((resolve) => {
    let text = '';
    pipe.setEncoding('utf8');
    pipe.on('data', (chunk: string) => {
      text += chunk;
    });
    pipe.on('error', () => resolve(text));
    pipe.on('close', () => resolve(text));
  });
}

/** PIPESTATUS from the status pipe, when it is there and agrees with the exit code: `$?` first, then each stage's. */
function parsePipeStatus(text: string, exit: LeaderExit): number[] | undefined {
  if (!/^\d+( \d+)+$/.test(text.trim())) return undefined;
  const [last, ...stages] = text.trim().split(' ').map(Number);
  if (exit.signal || last !== exit.code || stages.length === 0) return undefined;
  return stages;
}

function minutes(ms: number): string {
  const value = ms / 60_000;
  return `${Number.isInteger(value) ? value : value.toFixed(1)} minute${value === 1 ? '' : 's'}`;
}
