import { loadDescription } from '../../core/tool/tool.js';

const IDENTITY = loadDescription(import.meta.url, './identity.md');
const CONDUCT = loadDescription(import.meta.url, './conduct.md');
const TOOL_GUIDANCE = loadDescription(import.meta.url, './toolGuidance.md');

/**
 * The static part of the system prompt: identity, conduct, tool guidance, then the role's own
 * prompt. It depends on the role alone, never on the project, the session or the clock, so it is
 * byte-identical across the turns of a session and across sessions of the same role, and the
 * prompt cache keeps it. Pass the result as the session's `systemPrompt`; the context assembler
 * sends it as the first system block with a cache breakpoint at its end.
 */
export function staticSystemPrompt(rolePrompt: string): string {
  return [IDENTITY, CONDUCT, TOOL_GUIDANCE, `# Your role\n\n${rolePrompt.trim()}`].join('\n\n');
}
