import { runGit } from '../../shared/core/git/git.js';
import { UserError } from '../repoCheck.js';

/*
 * Apart from handOff.ts, which does the hand-off after the run, so that `orca run` checks the
 * flags before its run id without loading the push and the pull request description.
 */

export interface HandOffOptions {
  push?: string;
  pushPartial?: boolean;
  branch?: string;
  prBody?: string;
}

/** The hand-off flags, checked before the run starts: a run is not spent to find them wrong at its end. */
export async function checkHandOffOptions(repo: string, options: HandOffOptions): Promise<void> {
  if (options.push === undefined && (options.pushPartial || options.branch))
    throw new UserError(`${options.pushPartial ? '--push-partial' : '--branch'} goes with --push [REMOTE]: add --push.`);
  if (options.branch && (await runGit(repo, ['check-ref-format', '--branch', options.branch])).code !== 0)
    throw new UserError(`--branch ${options.branch} is not a valid branch name.`);
  const remote = options.push;
  // A name must be a configured remote; a URL or a path (a local bare repository) is taken as given.
  if (remote !== undefined && !/[/:]/.test(remote) && (await runGit(repo, ['remote', 'get-url', remote])).code !== 0)
    throw new UserError(
      `--push ${remote}: the repository has no remote named ${remote} (git remote -v lists them; a URL or path works too).`,
    );
}
