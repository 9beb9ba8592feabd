/**
 * `$VAR` and `${VAR}` replaced from `env` (unset: empty), as a shell would where none runs: in the
 * `args` of a command hook (`"${CLAUDE_PROJECT_DIR}/.claude/hooks/check.js"`) and in the header
 * values of an http hook. With `allowed`, any other name becomes empty too, so a settings file
 * cannot send a variable it was not allowed to (Claude Code's `allowedEnvVars`).
 */
export function expandVariables(text: string, env: Record<string, string>, allowed?: ReadonlySet<string>): string {
  return text.replace(/\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g, (_match, braced?: string, bare?: string) => {
    const name = (braced ?? bare)!;
    if (allowed && !allowed.has(name)) return '';
    return env[name] ?? '';
  });
}
