import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { SessionMemory } from '../context/memory/memoryService.js';
import type { AgentSession } from '../core/loop/session.js';
import type { SessionServices } from '../core/tool/tool.js';
import { ClaudeTranscript, claudeTranscriptPathFor } from '../policy/hooks/claudeTranscript.js';
import { claudeCodeMode } from '../policy/hooks/hookInput.js';
import type { HooksConfig } from '../policy/hooks/hooksConfig.js';
import type { PluginSet } from '../policy/plugins/pluginSet.js';
import type { EditDiagnostics } from '../tools/lsp/editDiagnostics.js';
import type { LspService } from '../tools/lsp/lspService.js';
import type { HarnessOptions } from './harnessOptions.js';

export interface SessionServicesInput {
  sandboxed: boolean;
  plugins: PluginSet;
  hooks: HooksConfig;
  lsp: LspService;
  diagnostics: EditDiagnostics;
  /** The session being built: the Claude Code transcript reads it once it exists. */
  session: () => AgentSession;
}

/**
 * What the session's tools and hooks reach besides the caller's services: the hooks and what their
 * input says (Claude Code's permission mode, the prompt id and effort, the Claude Code transcript),
 * the plugins' skills, the language servers, and the memory when the session has cards.
 */
export function sessionServices(options: HarnessOptions, input: SessionServicesInput): SessionServices {
  const { memory } = options;
  return {
    ...options.services,
    // Full access with Bash in the sandbox is what Claude Code calls accepting edits (its sandbox allows commands).
    claudePermissionMode:
      options.role.claudeMode ??
      (options.role.mode === 'full-access' && input.sandboxed ? 'acceptEdits' : claudeCodeMode(options.role.mode)),
    hookPrompt: { promptId: randomUUID(), effort: options.effort ?? 'high' },
    pluginSkills: input.plugins.plugins.flatMap((plugin) => plugin.skillDirs.map((dir) => ({ plugin: plugin.name, dir }))),
    claudeTranscript: new ClaudeTranscript(claudeTranscriptPathFor(path.resolve(options.sessionDir)), {
      id: () => input.session().id,
      cwd: options.workspaceRoot,
      model: () => options.model.id,
      messages: () => input.session().messages,
    }),
    hooks: input.hooks,
    lsp: input.lsp,
    editDiagnostics: input.diagnostics,
    ...(memory
      ? { memory: new SessionMemory({ scope: memory.scope, today: memory.today, source: memory.source, given: memory.cards }) }
      : {}),
  };
}
