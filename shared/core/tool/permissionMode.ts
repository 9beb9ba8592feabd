import { z } from 'zod';

/**
 * Permission modes, ordered: a session in mode M may run a tool that needs level L when L <= M.
 * Ordered so that "does A cover B" is one comparison, not a table of flags.
 */
export const PERMISSION_MODES = ['read-only', 'workspace-write', 'full-access'] as const;

export const PermissionModeSchema = z.enum(PERMISSION_MODES);
export type PermissionMode = z.infer<typeof PermissionModeSchema>;

export function modeRank(mode: PermissionMode): number {
  return PERMISSION_MODES.indexOf(mode);
}

export function modeCovers(session: PermissionMode, required: PermissionMode): boolean {
  return modeRank(session) >= modeRank(required);
}
