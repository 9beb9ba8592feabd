import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { readRunEvents } from '../../shared/infra/board/runEvents.js';
import type { RunJson } from '../run/runResult.js';
import type { OrcaServices } from '../services.js';
import type { HandOffOptions } from './handOffOptions.js';
import { prBody } from './prBody.js';
import { type PushOutcome, pushIntegration } from './pushBranch.js';

/** What `--json` says of the hand-off (docs/json.md): the push's outcome, the description's file. */
export interface HandOffJson {
  push: PushOutcome | null;
  pr_body: string | null;
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
