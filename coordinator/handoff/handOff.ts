import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { runGit } from '../../shared/core/git/git.js';
import { readRunEvents } from '../../shared/infra/board/runEvents.js';
import { UserError } from '../repoCheck.js';
import type { RunJson } from '../run/runResult.js';
import type { OrcaServices } from '../services.js';
import { prBody } from './prBody.js';
import { type PushOutcome, pushIntegration } from './pushBranch.js';

export interface HandOffOptions {
  push?: string;
  pushPartial?: boolean;
  branch?: string;
  prBody?: string;
}

/** What `--json` says of the hand-off (docs/json.md): the push's outcome, the description's file. */
export interface HandOffJson {
  push: PushOutcome | null;
  pr_body: string | null;
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

/**
 * After the run: the pull request description written (`--pr-body`), then the integration branch
 * pushed (`--push`). `failed`: a push that was asked for did not happen because git failed.
 */
export async function handOff(
  services: OrcaServices,
  repo: string,
  result: RunJson,
  options: HandOffOptions,
  say?: (line: string) => void,
): Promise<{ json?: HandOffJson; failed: boolean }> {
  if (options.push === undefined && options.prBody === undefined) return { failed: false };
  let bodyFile: string | null = null;
  if (options.prBody !== undefined) {
    const entries = (await readRunEvents(services.redis, services.keys, result.run_id, '0', 1_000_000)).map(({ entry }) => entry);
    bodyFile = path.resolve(options.prBody);
    writeFileSync(bodyFile, prBody(entries));
    say?.(`pull request description written to ${bodyFile}: \`gh pr create -F ${options.prBody}\` opens the PR`);
  }
  let push: PushOutcome | null = null;
  if (options.push !== undefined) {
    push = await pushIntegration({ repo, remote: options.push, branch: options.branch, partial: Boolean(options.pushPartial) }, result);
    const line = push.pushed ? `pushed ${push.commit.slice(0, 12)} to ${push.remote} as ${push.branch}` : `not pushed: ${push.reason}`;
    // Said even with --json (on stderr): a push that did not happen must not go unnoticed.
    if (say) say(line);
    else process.stderr.write(`orca: ${line}\n`);
  }
  const failed = push !== null && !push.pushed && push.reason.startsWith('git push');
  return { json: { push, pr_body: bodyFile }, failed };
}
