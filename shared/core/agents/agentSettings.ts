/** `{env:NAME}` inside a setting's string: the value of the variable NAME. */
const ENV_REFERENCE = /\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * An agent's settings as it is given them (docs/agents.md, `settings`): each `{env:NAME}` in a
 * string replaced by that variable's value in the agent's environment, and a setting that names
 * a variable the environment lacks left out, so the agent's own default holds there (an unset
 * ANTHROPIC_BASE_URL must not become a base URL of "/v1").
 */
export function resolveSettings(value: unknown, env: Record<string, string | undefined>): unknown {
  if (typeof value === 'string') {
    let missing = false;
    const resolved = value.replace(ENV_REFERENCE, (_, name: string) => {
      const found = env[name];
      if (found === undefined || found === '') missing = true;
      return found ?? '';
    });
    return missing ? undefined : resolved;
  }
  if (Array.isArray(value)) return value.map((item) => resolveSettings(item, env)).filter((item) => item !== undefined);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const resolved = resolveSettings(item, env);
      if (resolved !== undefined) out[key] = resolved;
    }
    return out;
  }
  return value;
}

/**
 * An agent's command options as it is given them (AcpAgent's `options`): each entry's arguments
 * with `{env:NAME}` replaced, an entry left out whole when its `ifEnv` or a variable it names is
 * unset, so no option is given half (a `-c` without its setting).
 */
export function resolveOptions(
  options: ReadonlyArray<{ args: readonly string[]; ifEnv?: string }>,
  env: Record<string, string | undefined>,
): string[] {
  return options.flatMap((option) => {
    if (option.ifEnv !== undefined && !env[option.ifEnv]) return [];
    const args = option.args.map((arg) => resolveSettings(arg, env));
    return args.every((arg): arg is string => typeof arg === 'string') ? args : [];
  });
}

/**
 * `settings` over what a file already holds (the user's own, copied in as a login file): objects
 * merged key by key, anything else of orca's replacing the user's, so the user's own choices
 * (their login type, their model) stay where orca sets nothing.
 */
export function mergeSettings(base: unknown, over: unknown): unknown {
  const isObject = (value: unknown): value is Record<string, unknown> =>
    typeof value === 'object' && value !== null && !Array.isArray(value);
  if (!isObject(base) || !isObject(over)) return over;
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) out[key] = mergeSettings(base[key], value);
  return out;
}
