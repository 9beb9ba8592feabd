import type { AcpAgent } from './agentBackend.js';
import { claudeCode } from './presets/claudeCode.js';
import { codex } from './presets/codex.js';
import { gemini } from './presets/gemini.js';
import { opencode } from './presets/opencode.js';

/** The agents orca knows by name (docs/agents.md); orca.json's `agents` names any other ACP command. */
export const PRESETS: readonly AcpAgent[] = [claudeCode, codex, gemini, opencode];
