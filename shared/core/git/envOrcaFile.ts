import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { commonGitDir, withRepoLock } from './repoLock.js';

/** orca's own file in each worktree: the leased ports and the run's names, for the setup and the project to read. */
export const ENV_ORCA = '.env.orca';

export interface WorktreeEnv {
  runId: string;
  taskId: string;
  ports: readonly number[];
}

/** The variables of `.env.orca` (and of the setup's and the agent's shell): PORT is the first leased port. */
export function worktreeEnvVars(env: WorktreeEnv): Record<string, string> {
  return {
    ORCA_PORTS: env.ports.join(','),
    PORT: env.ports[0] === undefined ? '' : String(env.ports[0]),
    ORCA_RUN_ID: env.runId,
    ORCA_TASK_ID: env.taskId,
  };
}

/**
 * Writes `.env.orca` (dotenv syntax) at the worktree's root. It is never committed: the
 * repository's local exclude file (`info/exclude`, never shared) gets a `/.env.orca` line once, so
 * `git status` and `git add -A` skip it in every worktree, the agent's own commands included.
 */
export async function writeEnvOrca(repo: string, dir: string, env: WorktreeEnv): Promise<void> {
  const lines = Object.entries(worktreeEnvVars(env)).map(([name, value]) => `${name}=${value}`);
  writeFileSync(path.join(dir, ENV_ORCA), `# Written by orca for this worktree; never committed.\n${lines.join('\n')}\n`);
  await excludeLocally(repo, `/${ENV_ORCA}`);
}

async function excludeLocally(repo: string, rule: string): Promise<void> {
  const file = path.join(await commonGitDir(repo), 'info', 'exclude');
  const has = () => existsSync(file) && readFileSync(file, 'utf8').split('\n').includes(rule);
  if (has()) return;
  await withRepoLock(repo, async () => {
    if (has()) return;
    mkdirSync(path.dirname(file), { recursive: true });
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    appendFileSync(file, `${text === '' || text.endsWith('\n') ? '' : '\n'}# orca's own file in each worktree\n${rule}\n`);
  });
}
