import type { ConfigFolders } from '../context/config/configFolders.js';
import { memorySection } from '../context/memory/memoryPrompt.js';
import { type ContextAssemblerOptions, createContextAssembler } from '../context/prompt/assembler.js';
import type { ContextAssembler } from '../core/loop/session.js';
import { hookContextFor } from '../policy/hooks/hookContext.js';
import { runHooks } from '../policy/hooks/hookRunner.js';
import { anyHook, type HooksConfig } from '../policy/hooks/hooksConfig.js';
import type { McpServers } from '../tools/mcp/mcpServers.js';
import type { HarnessOptions } from './harnessOptions.js';

/**
 * The session's context assembler: its instructions (from the trusted configuration's folders when
 * there is one), the MCP servers' and the memory's parts of the prompt, compaction, and the
 * InstructionsLoaded and Pre/PostCompact hooks it fires.
 */
export function sessionContext(
  options: HarnessOptions,
  hooks: HooksConfig,
  folders: ConfigFolders | undefined,
  mcp: McpServers,
): ContextAssembler {
  const trusted = options.config;
  return createContextAssembler({
    homeDir: options.homeDir,
    config: folders && trusted ? { ...folders, shownHome: trusted.files.home.dir } : undefined,
    requiredChecks: options.requiredChecks,
    compaction: options.compaction,
    gitAtStart: options.gitAtStart,
    memorySection: options.memory ? memorySection(options.memory.cards) : undefined,
    mcpSection: mcp.promptSection(),
    // A hook may change files at any event, where the session's own tool log cannot see it.
    othersMayWrite: anyHook(hooks),
    lastWorktreeLook: options.lastWorktreeLook,
    onInstructionsLoaded: instructionsLoadedHook(hooks),
    onCompact: compactHooks(hooks),
  });
}

/** InstructionsLoaded, once for each instruction file or rule that went into the context. */
function instructionsLoadedHook(hooks: HooksConfig): NonNullable<ContextAssemblerOptions['onInstructionsLoaded']> {
  return async (session, loaded) => {
    const context = hookContextFor(session.toolContext);
    for (const file of loaded) {
      await runHooks(
        hooks,
        'InstructionsLoaded',
        {
          file_path: file.file,
          memory_type: file.memoryType,
          load_reason: file.loadReason,
          ...(file.globs ? { globs: file.globs } : {}),
          ...(file.triggerFile !== undefined ? { trigger_file_path: file.triggerFile } : {}),
          ...(file.parentFile !== undefined ? { parent_file_path: file.parentFile } : {}),
        },
        context,
      );
    }
  };
}

/** PreCompact, which may block the compaction, and PostCompact, told its summary. */
function compactHooks(hooks: HooksConfig): NonNullable<ContextAssemblerOptions['onCompact']> {
  return async (phase, info) => {
    const context = hookContextFor(info.session.toolContext);
    if (phase === 'pre') {
      const outcome = await runHooks(
        hooks,
        'PreCompact',
        { trigger: info.trigger, custom_instructions: info.customInstructions ?? '' },
        context,
      );
      return outcome.blocked ? { block: outcome.reason ?? 'a PreCompact hook blocked it' } : undefined;
    }
    await runHooks(hooks, 'PostCompact', { trigger: info.trigger, compact_summary: info.summary ?? '' }, context);
    return undefined;
  };
}
