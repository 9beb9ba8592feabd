import { resolveModelId } from '../shared/core/model/modelAliases.js';
import { thinkingRequest } from '../shared/core/model/modelCapabilities.js';
import { ModelError } from '../shared/core/model/modelError.js';
import { type Effort, optionalThinking } from '../shared/core/model/thinking.js';
import { UserError } from './repoCheck.js';

/** The model a run or an agent is to use, as its jobs carry it: the full id, thinking and effort. */
export interface ModelChoice {
  id: string;
  thinking?: string;
  effort?: Effort;
}

/**
 * `--model` (or ORCA_MODEL, or the default) resolved to its full id, with `--thinking` and
 * `--effort`, checked against what that model accepts, so a setting the API would refuse stops
 * here in one line instead of failing every agent. `overrides` is a role's own choice, which wins.
 */
export function chooseModel(
  given: { model?: string; thinking?: string; effort?: Effort },
  overrides: { model?: string; thinking?: string; effort?: Effort } = {},
): ModelChoice {
  const choice: ModelChoice = { id: resolveModelId(given.model), thinking: given.thinking, effort: given.effort };
  const id = overrides.model ? resolveModelId(overrides.model) : choice.id;
  try {
    thinkingRequest(id, optionalThinking(overrides.thinking ?? choice.thinking), overrides.effort ?? choice.effort);
  } catch (error) {
    if (error instanceof ModelError) throw new UserError(error.message);
    throw error;
  }
  return choice;
}
