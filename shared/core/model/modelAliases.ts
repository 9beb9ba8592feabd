/**
 * The one place a model name becomes the id the API is sent: the CLI resolves `--model` (or
 * ORCA_MODEL) here and puts the full id in every job; a worker resolves here too, so an alias
 * never reaches the API whoever passed it.
 */

/** The current Sonnet: thinks by default (adaptive), and orca sends its thinking blocks back. */
export const DEFAULT_MODEL = 'claude-sonnet-5-5';

/**
 * Claude Code's aliases (as `.claude/agents/*.md` and `--model` accept them) and the newer
 * families the SDK lists, each mapped to that family's newest id in the SDK's model list.
 * `inherit` means "the run's model" and resolves to undefined.
 */
const ALIASES: Record<string, string | undefined> = {
  sonnet: DEFAULT_MODEL,
  opus: 'claude-opus-5-5',
  haiku: 'claude-haiku-5-5',
  fable: 'claude-fable-5-2',
  mythos: 'claude-mythos-5-2',
  inherit: undefined,
};

export const MODEL_ALIASES: readonly string[] = Object.keys(ALIASES).filter((name) => ALIASES[name] !== undefined);

/** An alias's full id; any other name is taken as an id and returned as it is. */
export function resolveModelAlias(name: string): string | undefined {
  const key = name.trim().toLowerCase();
  return Object.hasOwn(ALIASES, key) ? ALIASES[key] : name.trim();
}

/** The id a call is made with: the name given, else ORCA_MODEL, else the default; aliases resolved. */
export function resolveModelId(given?: string, env: NodeJS.ProcessEnv = process.env): string {
  const name = given?.trim() || env.ORCA_MODEL?.trim() || DEFAULT_MODEL;
  return resolveModelAlias(name) ?? resolveModelAlias(env.ORCA_MODEL?.trim() || DEFAULT_MODEL) ?? DEFAULT_MODEL;
}
