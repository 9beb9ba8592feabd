import type { AcpAgent } from './agentBackend.js';
import { claudeCode } from './claudeCodePreset.js';
import { codex } from './codexPreset.js';
import { gemini } from './geminiPreset.js';
import { opencode } from './opencodePreset.js';

/** The agents orca knows by name (docs/agents.md); orca.json's `agents` names any other ACP command. */
export const PRESETS: readonly AcpAgent[] = [claudeCode, codex, gemini, opencode];
