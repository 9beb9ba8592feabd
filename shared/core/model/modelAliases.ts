import { DEFAULT_MODEL } from './anthropic.js';

/**
 * Claude Code's model aliases (as `.claude/agents/*.md` and `--model` accept them) mapped to API
 * ids. `inherit` means "the run's model" and resolves to undefined.
 */
const ALIASES: Record<string, string | undefined> = {
  sonnet: DEFAULT_MODEL,
  opus: 'claude-opus-4-6',
  haiku: 'claude-haiku-4-5',
  inherit: undefined,
};

export function resolveModelAlias(name: string): string | undefined {
  return Object.hasOwn(ALIASES, name) ? ALIASES[name] : name;
}
