import type { SandboxKind, SandboxMode } from '../../core/runtime/sandboxMode.js';
import { hostSandbox } from '../../core/sandbox/hostSandbox.js';
import { NoSandboxError } from './noSandboxError.js';

export interface SandboxStatus {
  mode: SandboxMode;
  /** What this host's commands run in under that mode. */
  kind: SandboxKind;
  /** The one line `orca run`, `orca agent`, `orca worker` and the demo print at start (docs/cli.md). */
  line: string;
  /** Set when there is no working sandbox and the user did not say `--sandbox off`: the one line to exit 2 with. */
  refusal?: string;
}

/**
 * What `--sandbox off` means, said in the line: agent code runs as the user does. What orca still
 * stops without a sandbox is not in it (orca's git ignores git's user config, refs belong to the
 * coordinator, a cgroup ends what leaves its group); its Redis is, when it takes no password.
 */
export const OFF_MEANS =
  "agent code runs as you: Bash, setup commands, hooks and integration checks run unsandboxed on this host, with your keys, your Claude Code configuration and orca's state (ORCA_HOME)";

/**
 * The sandbox as this host will run it, said in one line: what Bash, setup commands, language
 * servers, hooks and checks run in. No silent "none": without a working sandbox the status
 * carries a refusal naming what is missing and how to get it, unless the user said off. `source`
 * names where the mode came from (`--sandbox off`, `ORCA_SANDBOX=off`).
 */
export function sandboxStatus(
  mode: SandboxMode,
  options: {
    source?: string;
    env?: NodeJS.ProcessEnv;
    /** Where the Redis in use is, when it takes no password. */
    passwordlessRedis?: string;
  } = {},
): SandboxStatus {
  if (mode === 'off') {
    return {
      mode,
      kind: 'none',
      line: `sandbox: off (${options.source ?? '--sandbox off'}): ${OFF_MEANS}${redisClause(options.passwordlessRedis)}`,
    };
  }
  // hostSandbox, not sandbox.ts's sandboxAvailability (the same call): the CLI says this line before it loads the sandbox.
  const found = hostSandbox(options.env);
  if (found.kind === undefined) {
    return {
      mode,
      kind: 'none',
      line: `sandbox: none (${found.problem})`,
      refusal: new NoSandboxError(found.problem, found.fix).message,
    };
  }
  const hooks =
    mode === 'required'
      ? 'hooks run in it too (--sandbox required)'
      : 'hooks run unsandboxed, as Claude Code runs them (--sandbox required puts them in it)';
  return {
    mode,
    kind: found.kind,
    line:
      `sandbox: ${found.kind} (${found.program}): Bash, setup commands, language servers and integration checks run in it ` +
      "(their worktree and a private /tmp writable; ORCA_HOME, ~/.claude, git's config and your checkout read-only; " +
      "no network but allowed domains through orca's proxy); " +
      hooks,
  };
}

/** Without a sandbox agent code reaches loopback: a Redis without a password is open to it (docs/security.md, Redis). */
function redisClause(where: string | undefined): string {
  return where === undefined ? '' : `, and orca's Redis (${where}), which takes no password`;
}
