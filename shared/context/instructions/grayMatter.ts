import { createRequire } from 'node:module';
import type matterType from 'gray-matter';

// Required at the first front matter read, not with the module that reads it: gray-matter brings
// js-yaml and esprima (about 1 MB of heap and 8–14 ms of a command's start), which a worker or a
// command that reads no rule, skill, memory or agent file with front matter never needs (issue 35:
// worker_rss_mb; `orca agent`'s way to its job). Synchronous, as the parses that use it are.
const requireHere = createRequire(import.meta.url);
let matter: typeof matterType | undefined;

/** gray-matter, loaded the first time it is asked for. */
export function grayMatter(): typeof matterType {
  matter ??= requireHere('gray-matter') as typeof matterType;
  return matter;
}
