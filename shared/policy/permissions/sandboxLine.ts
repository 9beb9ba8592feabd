import type { SandboxKind, SandboxMode } from '../../core/runtime/sandboxMode.js';
import { type SandboxAvailability, SandboxRequiredError, sandboxAvailability } from './sandbox.js';

/** The integration checks run agent-written code: they run in the same sandbox as Bash (infra/verify/checks/checkSandbox.ts). */
export const CHECKS_SANDBOXED = true;

export interface SandboxStatus {
  mode: SandboxMode;
  /** What this host's commands run in under that mode. */
  kind: SandboxKind;
  /** The one line `orca run`, `orca agent`, `orca worker` and the demo print at start (docs/cli.md). */
  line: string;
  /** Set under `required` without a working sandbox: the one line to exit 2 with. */
  refusal?: string;
}

/**
 * The sandbox as this host will run it, said in one line: what Bash, hooks and checks run in,
 * and, when that is nothing, what still holds and how to get bwrap. `source` names where the mode
 * came from (`--sandbox off`, `ORCA_SANDBOX=off`).
 */
export function sandboxStatus(
  mode: SandboxMode,
  options: {
    source?: string;
    env?: NodeJS.ProcessEnv /** Where the Redis in use is when it takes no password. */;
    passwordlessRedis?: string;
  } = {},
): SandboxStatus {
  const found: SandboxAvailability = mode === 'off' ? { problem: 'off' } : sandboxAvailability(options.env);
  const checks = CHECKS_SANDBOXED ? 'in it' : 'unsandboxed on the host';
  if (found.bwrap !== undefined) {
    const hooks =
      mode === 'required'
        ? 'hooks run in it too (--sandbox required)'
        : 'hooks run unsandboxed, as Claude Code runs them (--sandbox required puts them in it)';
    return {
      mode,
      kind: 'bwrap',
      line: `sandbox: bwrap (${found.bwrap}): Bash runs in it (the worktree and a private /tmp writable); ${hooks}; integration checks run ${checks}`,
    };
  }
  const why = mode === 'off' ? (options.source ?? '--sandbox off') : found.problem;
  const holds =
    "held only by orca's permission checks (a write the command names must be inside the worktree; one it cannot show is refused), " +
    'while Worker and Verification agents run Bash in full-access mode';
  const fix =
    mode === 'off'
      ? 'drop --sandbox off to use bwrap'
      : 'install bwrap: apt-get install bubblewrap (or --sandbox required to refuse to run without it)';
  return {
    mode,
    kind: 'none',
    line: `sandbox: none (${why}): Bash, hooks and integration checks run unsandboxed on this host, ${holds}${redisClause(options.passwordlessRedis)}; ${fix}`,
    ...(mode === 'required' ? { refusal: new SandboxRequiredError(found.problem).message } : {}),
  };
}

/** Without a sandbox, agent code reaches loopback: a Redis without a password is then open to it (docs/security.md, Redis). */
function redisClause(where: string | undefined): string {
  return where === undefined
    ? ''
    : `; the Redis in use (${where}) takes no password, so agent code can read and write orca's queue and answer its own asks`;
}
