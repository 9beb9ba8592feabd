import { setMaxListeners } from 'node:events';
import { ToolError } from '../../core/boundary/toolError.js';
import { fileTypeGlobs, unknownFileTypeMessage } from './fileTypes.js';
import { walkFiles } from './fileWalk.js';
import { grepPool } from './grepPool.js';
import type { EngineResult, FileMatches, GrepQuery } from './grepQuery.js';
import { compilePattern, type TextMatchOptions } from './matchText.js';

/** Files per worker task: large enough that messaging is cheap, small enough to spread the work. */
const BATCH_FILES = 128;

/**
 * Grep without rg: the main thread walks the folders (fileWalk.ts) and hands batches of files to
 * the piscina pool, whose threads read and match them (grepWorker.ts), so a big search does not
 * block the event loop. Gives what rg gives for the same query (see ripgrep.ts).
 */
export async function runJsGrep(query: GrepQuery, signal: AbortSignal): Promise<EngineResult> {
  let typeGlobs: readonly string[] | undefined;
  if (query.type !== undefined) {
    typeGlobs = fileTypeGlobs(query.type);
    if (!typeGlobs) throw new ToolError(unknownFileTypeMessage(query.type));
  }
  try {
    compilePattern(query.pattern, query.ignoreCase);
  } catch (error) {
    throw new ToolError(`The pattern is not a valid regular expression: ${(error as Error).message}`);
  }
  const options: TextMatchOptions = {
    pattern: query.pattern,
    ignoreCase: query.ignoreCase,
    multiline: query.multiline,
    mode: query.mode,
    before: query.before,
    after: query.after,
  };
  const pool = await grepPool();
  // Every queued task listens for abort: one signal for them all, without the listener-leak warning.
  const taskSignal = AbortSignal.any([signal]);
  setMaxListeners(0, taskSignal);
  const files: FileMatches[] = [];
  const warnings: string[] = [];
  const tasks: Promise<void>[] = [];
  const submit = (batch: string[]): void => {
    tasks.push(
      pool.run({ base: query.base, files: batch, options }, { signal: taskSignal }).then((result) => {
        files.push(...result.files);
        warnings.push(...result.warnings);
      }),
    );
  };

  if (query.targetIsFile) {
    submit([query.target]);
  } else {
    // Folders hold a few files each: gather them across folders into full batches.
    let batch: string[] = [];
    const walked = await walkFiles({ base: query.base, start: query.target, globs: query.globs, typeGlobs, signal }, (found) => {
      for (const file of found) {
        batch.push(file);
        if (batch.length === BATCH_FILES) {
          submit(batch);
          batch = [];
        }
      }
    });
    if (batch.length > 0) submit(batch);
    warnings.push(...walked.warnings);
  }
  // allSettled first so no task is left running unobserved when one fails.
  const settled = await Promise.allSettled(tasks);
  const failed = settled.find((outcome) => outcome.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
  return { files, warnings };
}
