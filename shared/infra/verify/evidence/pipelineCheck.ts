import type { BashResultFields, PipelineStage } from '../../../core/tool/bashResultData.js';
import { isCheckCommand, normalizeCommand } from './checkCommand.js';

/**
 * Checks inside pipelines. Models pipe a check's output by habit (`npm test 2>&1 | tail -50`),
 * and the shell's exit code is then the last stage's. When a Bash call was one pipeline (Bash
 * recorded each stage with its PIPESTATUS), its first stage, without the redirections of its own
 * output, is a run of that command with that stage's exit code: `npm test 2>&1 | tail -50` is a
 * run of `npm test`. Only the first stage: it reads no other stage's output, so it ran as it
 * would alone.
 */
export function firstStageRun(command: string, data: BashResultFields): PipelineStage | undefined {
  const first = data.pipeline?.[0];
  if (!first || normalizeCommand(first.command) === normalizeCommand(command)) return undefined;
  return first;
}

/**
 * The exit code a check is judged by: the first stage's when that stage is a check (the pipe's
 * own code is `tail`'s), else the shell's.
 */
export function judgedExitCode(command: string, data: BashResultFields): number | undefined {
  const stage = firstStageRun(command, data);
  return stage && isCheckCommand(stage.command) ? stage.exitCode : data.exitCode;
}
