import { cpSync, existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * ORCA_HOME when the user sets none. Every worktree orca makes lives under it, so no folder in its
 * path may start with a dot: some projects' tests refuse such paths (express's file serving, via
 * `send`, answers 404 under any dot-folder), and they would fail in orca's worktrees only. In order:
 * - `$XDG_STATE_HOME/orca`, when XDG_STATE_HOME is set, absolute and has no dot-folder (its own
 *   default, `~/.local/state`, has one, so it is used only when the user chose it);
 * - `~/orca-state`, when the home folder's path has no dot-folder: visible, but it persists, and
 *   kept worktrees and run records must (not /var/tmp, which systemd-tmpfiles ages out);
 * - `/var/tmp/orca-<uid>` otherwise.
 * A user's own ORCA_HOME is the user's choice, dot-folder or not.
 */
export function defaultOrcaHome(env: NodeJS.ProcessEnv = process.env, home = os.homedir()): string {
  const state = env.XDG_STATE_HOME;
  if (state && path.isAbsolute(state) && !hasDotFolder(state)) return path.join(state, 'orca');
  if (!hasDotFolder(home)) return path.join(home, 'orca-state');
  return path.join('/var/tmp', `orca-${os.userInfo().uid}`);
}

/** Whether a folder on the path (resolved) starts with a dot. */
export function hasDotFolder(folder: string): boolean {
  return path
    .resolve(folder)
    .split(path.sep)
    .some((part) => part.startsWith('.'));
}

/** The default ORCA_HOME before orca kept dot-folders out of worktree paths. */
export function legacyOrcaHome(home = os.homedir()): string {
  return path.join(home, '.orca');
}

/** Left in the new ORCA_HOME once the old one was noted, so it is said once. */
const NOTED = 'moved-from-legacy-home.txt';

/**
 * Finds the old default (`~/.orca`) when the new default is in use: its memory cards are copied
 * over (the one thing in it a later run reads) unless the new home has its own, and one line says
 * where its earlier runs stay and how to clean them. Once per home; nothing when ORCA_HOME is set.
 */
export function noteLegacyHome(root: string, env: NodeJS.ProcessEnv = process.env, home = os.homedir()): string | undefined {
  const legacy = legacyOrcaHome(home);
  if (env.ORCA_HOME || !existsSync(legacy) || path.resolve(root) === legacy || existsSync(path.join(root, NOTED))) return undefined;
  const copied = copyMemory(legacy, root);
  const line = `ORCA_HOME's default is now ${root} (no dot-folder in a worktree's path); earlier runs stay in ${legacy}${copied ? ', its memory cards were copied over' : ''}: \`ORCA_HOME=${legacy} orca clean\` removes them`;
  writeFileSync(path.join(root, NOTED), `${line}\n`);
  return line;
}

function copyMemory(legacy: string, root: string): boolean {
  const from = path.join(legacy, 'memory');
  const to = path.join(root, 'memory');
  if (!existsSync(from) || existsSync(to)) return false;
  cpSync(from, to, { recursive: true });
  return true;
}
