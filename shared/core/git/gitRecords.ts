import { existsSync } from 'node:fs';
import { launchGit, ORCA_GIT_CONFIG } from './git.js';

/** Stderr kept for the error message: git's own complaint is a line or two. */
const MAX_STDERR = 64 * 1024;
const NUL = 0;

/**
 * Runs git in `dir` (with gitAt's safety: gitSafety.ts) and hands each NUL-terminated record of
 * its stdout (`-z` output: `ls-files -z`, `status -z`) to `onRecord` as it arrives, each decoded
 * from the bytes on its own. A listing is never held whole: `raw` of `ls-files --stage` on 20,000
 * files is a 1.7 MB string, and every path split out of it is a slice that keeps all of it alive
 * for as long as any one path is kept. Rejects, as `raw` does, when git exits non-zero saying why
 * on stderr.
 */
export async function gitRecords(dir: string, args: string[], onRecord: (record: string) => void, signal?: AbortSignal): Promise<void> {
  if (!existsSync(dir)) throw new Error(`cannot run git in ${dir}: the folder does not exist`);
  // The bytes of a record a chunk ended inside of, until its NUL comes.
  let partial: Buffer[] = [];
  const onStdout = (chunk: Buffer) => {
    let start = 0;
    for (let end = chunk.indexOf(NUL); end !== -1; end = chunk.indexOf(NUL, start)) {
      const record =
        partial.length === 0
          ? chunk.toString('utf8', start, end)
          : Buffer.concat([...partial, chunk.subarray(start, end)]).toString('utf8');
      partial = [];
      onRecord(record);
      start = end + 1;
    }
    // Copied: a view would keep the whole chunk for a few bytes.
    if (start < chunk.length) partial.push(Buffer.from(chunk.subarray(start)));
  };
  const ran = await launchGit(dir, [...ORCA_GIT_CONFIG, ...args], { signal, onStdout }).catch((error: unknown) => {
    throw signal?.aborted ? signal.reason : error;
  });
  if (ran.code === null) throw new Error(`git ${args.join(' ')} in ${dir} was killed (${ran.signal})`);
  const stderr = ran.stderr.subarray(0, MAX_STDERR).toString('utf8');
  if (ran.code !== 0 && stderr.length > 0) throw new Error(stderr);
  // Output that does not end in NUL (none of git's -z listings) still counts as a record.
  if (partial.length > 0) onRecord(Buffer.concat(partial).toString('utf8'));
}
