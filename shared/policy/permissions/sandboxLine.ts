import type { SandboxKind, SandboxMode } from '../../core/runtime/sandboxMode.js';
import { NoSandboxError, sandboxAvailability } from './sandbox.js';

export interface SandboxStatus {
  mode: SandboxMode;
  /** What this host's commands run in under that mode. */
  kind: SandboxKind;
  /** The one line `orca run`, `orca agent`, `orca worker` and the demo print at start (docs/cli.md). */
  line: string;
  /** Set when there is no working sandbox and the user did not say `--sandbox off`: the one line to exit 2 with. */
  refusal?: string;
}

/** What `--sandbox off` means, said in the line: agent code runs as the user does. */
export const OFF_MEANS =
  "agent code runs as you: Bash, setup commands, hooks and integration checks run unsandboxed on this host, with your keys, your git and Claude Code configuration, and orca's Redis";

/**
 * The sandbox as this host will run it, said in one line: what Bash, setup commands, language
 * servers, hooks and checks run in. No silent "none": without a working sandbox the status
 * carries a refusal naming what is missing and how to get it, unless the user said off. `source`
 * names where the mode came from (`--sandbox off`, `ORCA_SANDBOX=off`).
 */
export function sandboxStatus(mode: SandboxMode, options: { source?: string; env?: NodeJS.ProcessEnv } = {}): SandboxStatus {
  if (mode === 'off') return { mode, kind: 'none', line: `sandbox: off (${options.source ?? '--sandbox off'}): ${OFF_MEANS}` };
  const found = sandboxAvailability(options.env);
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
