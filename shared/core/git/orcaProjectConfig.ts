import { z } from 'zod';
import { AgentChoiceSchema, ProjectAgentsSchema } from '../agents/agentChoice.js';
import { describeZodError } from '../boundary/zodIssues.js';
import { readCommitBlobs } from './commitFiles.js';

/** The default of `symlinkDirectories`: the folders linked into a worktree from the user's checkout. */
export const DEFAULT_SYMLINK_DIRECTORIES = ['node_modules'];
/** How long one setup command may run before it is stopped (and the task fails). */
export const DEFAULT_SETUP_TIMEOUT_SECONDS = 600;

/** A repository-relative path: forward slashes, no `..`, not absolute. */
const RelativePath = z
  .string()
  .min(1)
  .refine((value) => !value.startsWith('/') && !value.split('/').includes('..'), {
    message: 'must be a path inside the repository (relative, without ..)',
  });

/** `orca.json` at the repository root (docs/worktrees.md): how a new worktree is made ready to run. */
export const OrcaProjectConfigSchema = z
  .object({
    /** Shell commands run, in order, in each new writing worktree before its agent starts. */
    setup: z.array(z.string().min(1)).default([]),
    /** How long each setup command may run, in seconds. */
    setupTimeoutSeconds: z.number().int().positive().default(DEFAULT_SETUP_TIMEOUT_SECONDS),
    /** Folders of the user's checkout linked into each worktree instead of installed there. */
    symlinkDirectories: z.array(RelativePath).default(DEFAULT_SYMLINK_DIRECTORIES),
    /** When set: a sparse checkout of these paths (and the task's own paths and checks' paths). */
    sparsePaths: z.array(RelativePath).optional(),
    /** ACP agents the project names (docs/agents.md), beside the presets. */
    agents: ProjectAgentsSchema.optional(),
    /** Which agent runs which role (`"claude-code"`: the Worker; or by role name); `--agent` wins. */
    agent: AgentChoiceSchema.optional(),
  })
  .strict();
export type OrcaProjectConfig = z.infer<typeof OrcaProjectConfigSchema>;

/**
 * The repository's `orca.json` as it is at `commit` (git's objects, never a working tree: what the
 * run starts from, whatever the checkout holds now). No file means the defaults.
 */
export async function readOrcaProjectConfig(repo: string, commit: string): Promise<OrcaProjectConfig> {
  const blob = (await readCommitBlobs(repo, commit, ['orca.json'])).get('orca.json');
  if (blob === undefined) return OrcaProjectConfigSchema.parse({});
  const where = `orca.json at ${commit.slice(0, 12)}`;
  let raw: unknown;
  try {
    raw = JSON.parse(blob.toString('utf8'));
  } catch (error) {
    throw new Error(`${where} is not JSON (${(error as Error).message}): fix it and commit it, or remove it`);
  }
  const parsed = OrcaProjectConfigSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`${describeZodError(parsed.error, where)}; see docs/worktrees.md`);
  return parsed.data;
}
