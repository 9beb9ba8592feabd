import { z } from 'zod';

/**
 * `--sandbox` / `ORCA_SANDBOX`: `auto` sandboxes the roles that want it and refuses to start where
 * there is no working sandbox (no silent none); `required` sandboxes every role (and hooks too);
 * `off` runs every command unsandboxed, knowingly.
 */
export const SANDBOX_MODES = ['auto', 'required', 'off'] as const;
export const SandboxModeSchema = z.enum(SANDBOX_MODES);
export type SandboxMode = z.infer<typeof SandboxModeSchema>;

/** What a task's commands actually ran in: the run JSON's and the board's `sandbox`. */
export const SandboxKindSchema = z.enum(['bwrap', 'sandbox-exec', 'none']);
export type SandboxKind = z.infer<typeof SandboxKindSchema>;

/** A mode as written on the command line or in ORCA_SANDBOX; undefined with the problem when it is none of them. */
export function parseSandboxMode(value: string): { ok: true; mode: SandboxMode } | { ok: false; problem: string } {
  const parsed = SandboxModeSchema.safeParse(value.trim().toLowerCase());
  if (parsed.success) return { ok: true, mode: parsed.data };
  return { ok: false, problem: `"${value}" is not a sandbox mode: expected one of ${SANDBOX_MODES.join(', ')}` };
}

/** ORCA_SANDBOX's mode (auto when unset); a value that is no mode is an error naming the variable. */
export function sandboxModeFromEnv(env: NodeJS.ProcessEnv = process.env): SandboxMode {
  const value = env.ORCA_SANDBOX;
  if (value === undefined || value.trim() === '') return 'auto';
  const parsed = parseSandboxMode(value);
  if (!parsed.ok) throw new Error(`ORCA_SANDBOX: ${parsed.problem}`);
  return parsed.mode;
}

/** The stricter of a job's mode and the worker's own: a worker started with `required` never runs a job unsandboxed. */
export function strictestSandboxMode(job: SandboxMode, worker: SandboxMode): SandboxMode {
  if (job === 'required' || worker === 'required') return 'required';
  return job === 'off' ? 'off' : 'auto';
}
