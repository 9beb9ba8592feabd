import { skillGrantsIn } from '../context/instructions/skillGrants.js';
import type { AgentEventInput } from '../core/events/agentEvent.js';
import type { ToolPipelineSlots } from '../core/tool/pipeline.js';
import { hookContextFor } from '../policy/hooks/hookContext.js';
import { runHooks } from '../policy/hooks/hookRunner.js';
import type { HooksConfig } from '../policy/hooks/hooksConfig.js';
import { permissionRequestHook } from '../policy/hooks/permissionRequest.js';
import { createPermissionDecider } from '../policy/permissions/permissionSlot.js';
import { PermissionPolicy } from '../policy/permissions/policy.js';
import { DenyPrompter } from '../policy/permissions/prompter.js';
import type { Sandbox } from '../policy/permissions/sandbox.js';
import { ToolLimit } from '../policy/permissions/toolLimit.js';
import type { LoadedSettings } from '../policy/settings/loadSettings.js';
import type { HarnessOptions } from './harnessOptions.js';

export interface SessionPermissionsInput {
  settings: LoadedSettings;
  sandbox: Sandbox;
  scratchDir: string;
  hooks: HooksConfig;
  /** Records a permission question and its answer at once, from inside the tool call that waits on it. */
  announce: (event: AgentEventInput) => void;
}

/**
 * Who decides each tool call: the settings' permission rules (with what the sandbox and the scratch
 * folder allow), the slash command's `allowed-tools`, the PermissionRequest hooks, then the prompter,
 * with a Notification hook before a question is asked. `limit` is the command's tool limit, if any.
 */
export function sessionPermissions(
  options: HarnessOptions,
  { settings, sandbox, scratchDir, hooks, announce }: SessionPermissionsInput,
): { decider: ToolPipelineSlots['permission']; limit?: ToolLimit } {
  const limit = options.toolLimit ? ToolLimit.from(options.toolLimit.rules, options.toolLimit.source) : undefined;
  const policy = PermissionPolicy.fromSettings(settings, {
    ...sandbox.policy,
    writableOutside: [...(sandbox.policy.writableOutside ?? []), scratchDir],
    home: options.homeDir,
  }).withAllowRules(limit?.texts ?? [], limit?.source ?? '');
  const decider = createPermissionDecider({
    policy,
    limit,
    home: options.homeDir,
    prompter: options.prompter ?? new DenyPrompter(),
    requestHook: permissionRequestHook(hooks),
    beforeAsk: async (question, ctx) => {
      await runHooks(
        hooks,
        'Notification',
        {
          message: `orca needs your permission to use ${question.tool}: ${question.summary}`,
          title: 'Permission needed',
          notification_type: 'permission_prompt',
        },
        hookContextFor(ctx),
      );
    },
    announce,
    temporaryAllows: (ctx) =>
      skillGrantsIn(ctx.services)
        .activeGrants()
        .map((grant) => ({ rules: grant.rules, source: `skill:${grant.skill}` })),
  });
  return { decider, limit };
}
