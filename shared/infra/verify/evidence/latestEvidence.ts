import { normalizeCommand } from './checkCommand.js';
import type { CheckEvidence } from './evidence.js';

/**
 * The latest recorded run of `command` (whitespace aside): what a claim or a required check is
 * judged on. A check run as a pipeline's first stage is found by the stage and by the whole line.
 */
export function latestEvidence(evidence: readonly CheckEvidence[], command: string): CheckEvidence | undefined {
  const wanted = normalizeCommand(command);
  return [...evidence]
    .sort((a, b) => a.started_at - b.started_at)
    .findLast(
      (one) =>
        normalizeCommand(one.command) === wanted || (one.command_line !== undefined && normalizeCommand(one.command_line) === wanted),
    );
}
