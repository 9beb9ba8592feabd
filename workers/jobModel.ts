import type { Redis } from 'ioredis';
import { AnthropicModel } from '../shared/core/model/anthropic.js';
import type { Model } from '../shared/core/model/model.js';
import { ModelError } from '../shared/core/model/modelError.js';
import { ScriptedModel } from '../shared/core/model/scripted.js';
import { parseScript } from '../shared/core/model/scriptFile.js';
import { optionalThinking } from '../shared/core/model/thinking.js';
import { FanoutGate, fanoutHoldMs } from '../shared/infra/fanout/fanoutGate.js';
import { FanoutModel } from '../shared/infra/fanout/fanoutModel.js';
import type { AgentJob } from '../shared/infra/queue/agentJob.js';
import type { Keys } from '../shared/infra/redis/keys.js';

/**
 * The job's script played back, or the model its role names; one it cannot make is returned, as
 * the job's failure. Its first call passes the run's fan-out gate (unless ORCA_FANOUT_HOLD_MS is 0).
 */
export function buildModel(job: AgentJob, deps: { redis: Redis; keys: Keys }): Model | ModelError {
  try {
    const holdMs = fanoutHoldMs();
    const model = job.model.script
      ? new ScriptedModel(parseScript(job.model.script as object, 'the job script'), {
          role: job.role.name,
          task: job.subtask,
          prompt: job.prompt,
        })
      : new AnthropicModel({
          model: job.role.model ?? job.model.id,
          thinking: optionalThinking(job.role.thinking ?? job.model.thinking),
          effort: job.role.effort ?? job.model.effort,
          // An external agent's job runs without orca's key: only a call of orca's own model needs it.
          keyAtFirstCall: job.agent?.kind === 'acp',
        });
    if (holdMs === 0) return model;
    return new FanoutModel(model, new FanoutGate({ redis: deps.redis, keys: deps.keys, runId: job.run_id, holdMs }), job.role.name);
  } catch (error) {
    if (error instanceof ModelError) return error;
    throw error;
  }
}
