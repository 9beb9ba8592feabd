import { AnthropicModel } from './anthropic.js';
import type { Model } from './model.js';
import { type ScriptedAgentIdentity, ScriptedModel } from './scripted.js';
import type { Script } from './scriptFile.js';

/**
 * The model for one agent: the Scripted model when a script is given (no LLM, and every run that
 * uses it says so), otherwise Anthropic's, configured from the environment.
 */
export function createModel(options: { script?: Script; modelId?: string; identity: ScriptedAgentIdentity }): Model {
  if (options.script) return new ScriptedModel(options.script, options.identity);
  return new AnthropicModel({ model: options.modelId });
}
