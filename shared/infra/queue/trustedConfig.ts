import { z } from 'zod';

/**
 * The trusted configuration of a run, sent with every job (docs/claude-code-files.md): the Claude
 * Code files every agent's settings, hooks, permission rules, roles, skills, rules and
 * instructions come from. Read once by the coordinator, from the user's repository at the run's
 * base commit (git objects, never a worktree) and from the user's own folders; never from a tree
 * an agent wrote (a task worktree, the merged tree, a view). Only the files' text travels.
 */

/** A path relative to its root, `/`-separated, that cannot leave it. */
const RelativePath = z
  .string()
  .min(1)
  .refine(
    (p) => !p.startsWith('/') && !p.includes('\0') && !p.split('/').some((part) => part === '..' || part === ''),
    'must be a relative path inside its folder (no leading "/", no ".." or empty parts)',
  );

export const ConfigFileSchema = z.object({ path: RelativePath, text: z.string() });
export type ConfigFile = z.infer<typeof ConfigFileSchema>;

export const TrustedConfigSchema = z.object({
  /** The commit the project's files were read from (the run's base); unset when no project files were read (a remote repository). */
  commit: z
    .string()
    .regex(/^[0-9a-f]{40}$/)
    .optional(),
  /** The repository's files at that commit, by path from its root (`.claude/settings.json`, `CLAUDE.md`, …). */
  project: z.array(ConfigFileSchema).default([]),
  /**
   * The user's Claude folder (ORCA_USER_CLAUDE_DIR, CLAUDE_CONFIG_DIR or ~/.claude) on the host that
   * read it, and its files by path from there (`settings.json`).
   */
  user: z.object({ dir: z.string().min(1), files: z.array(ConfigFileSchema) }),
  /** The user's home on that host, and the files read under it (`.claude/CLAUDE.md` and its imports, `.claude/skills/…`, `.claude/rules/…`). */
  home: z.object({ dir: z.string().min(1), files: z.array(ConfigFileSchema) }),
  /**
   * The user's own overrides for this project, from their checkout on disk
   * (`.claude/settings.local.json`, `CLAUDE.local.md`; gitignored by design), by path from the
   * repository's root: they are the user's, not the agents', and win over committed copies.
   */
  local: z.array(ConfigFileSchema).default([]),
  /** Files that were left out (too large, not text), each with why: shown as notices. */
  problems: z.array(z.string()).default([]),
});
export type TrustedConfig = z.infer<typeof TrustedConfigSchema>;

/** A project file's text at the base commit, or undefined when there is none (`.mcp.json`, …). */
export function projectConfigFile(config: TrustedConfig, file: string): string | undefined {
  return config.project.find((entry) => entry.path === file)?.text;
}
