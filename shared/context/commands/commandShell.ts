import os from 'node:os';
import { Workspace } from '../../core/files/workspace.js';
import { agentShellEnv } from '../../core/runtime/agentEnv.js';
import { spawnGroup } from '../../core/runtime/processGroup.js';
import type { ToolFacts } from '../../core/tool/toolFacts.js';
import { ToolLimit } from '../../policy/permissions/toolLimit.js';

/** How long a command's `!`…`` may run while the command is expanded. */
export const SHELL_TIMEOUT_MS = 60_000;
const MAX_OUTPUT_CHARS = 30_000;

/**
 * A slash command's `!`command`` (Claude Code's bash execution): run while the command is
 * expanded, in the repository's checkout, its output (stdout and stderr) put in its place. As in
 * Claude Code, the command's own `allowed-tools` must allow it as a call of the shell tool
 * (`Bash`, or a `Bash(…)` rule covering every part of it, judged as an agent's Bash call is);
 * anything else, a failure or a timeout, is an error naming the command: a prompt is never sent
 * with a hole in it.
 */
export async function runCommandShell(
  command: string,
  options: { cwd: string; shell: ToolFacts; allowedTools: readonly string[]; file: string },
): Promise<string> {
  const { shell } = options;
  const limit = ToolLimit.from(options.allowedTools, options.file);
  const input = shell.rule ? { [shell.rule.field]: command } : {};
  const refusal = limit
    ? limit.refusal({ tool: shell, input, level: 'full-access' }, { workspace: new Workspace(options.cwd), home: os.homedir() })
    : `${options.file} has no allowed-tools`;
  if (refusal) {
    throw new Error(
      `${options.file} runs !\`${command}\`, which it does not allow: ${refusal}; add ${shell.name}(${command}) to its allowed-tools`,
    );
  }
  const group = await spawnGroup('bash', ['-c', command], { cwd: options.cwd, env: agentShellEnv() });
  const chunks: Buffer[] = [];
  group.child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  group.child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
  const stopped = await group.waitForEnd({ timeoutMs: SHELL_TIMEOUT_MS });
  const { code, signal } = await group.exited;
  if (!(await group.outputClosedWithin())) {
    group.child.stdout.destroy();
    group.child.stderr.destroy();
  }
  const output = Buffer.concat(chunks).toString('utf8').replace(/\s+$/, '');
  if (stopped === 'timeout') throw new Error(`${options.file}: !\`${command}\` did not finish in ${SHELL_TIMEOUT_MS / 1000} s`);
  if (code !== 0) {
    const first = output.split('\n').find(Boolean) ?? '';
    throw new Error(
      `${options.file}: !\`${command}\` failed (${code === null ? `killed by ${signal}` : `exit code ${code}`})${first ? `: ${first}` : ''}`,
    );
  }
  return output.length > MAX_OUTPUT_CHARS ? `${output.slice(0, MAX_OUTPUT_CHARS)}\n[output cut at ${MAX_OUTPUT_CHARS} characters]` : output;
}
