/**
 * Every path a `git status --porcelain=v2 --branch -z` (the host's watch's look) names as other
 * than its HEAD: changed in the index or on disk, both paths of a rename, unmerged, untracked;
 * ignored entries are not changes. With the HEAD it compared with (`# branch.oid`), undefined
 * when unborn or not said. A superset is safe for its callers: they only ask whether any of
 * these could matter.
 */
export function pathsInV2(statusOut: string): { head?: string; paths: string[] } {
  const paths: string[] = [];
  let head: string | undefined;
  const records = statusOut.split('\0');
  for (let index = 0; index < records.length; index += 1) {
    const record = records[index]!;
    if (record.startsWith('# branch.oid ')) {
      const oid = record.slice('# branch.oid '.length);
      if (/^[0-9a-f]{40}$/.test(oid)) head = oid;
    } else if (record.startsWith('? ')) paths.push(record.slice(2));
    else if (record.startsWith('1 ')) paths.push(v2RecordPath(record, 8));
    else if (record.startsWith('2 ')) {
      // A rename: the new path, then the old one as a record of its own.
      paths.push(v2RecordPath(record, 9));
      index += 1;
      if (records[index]) paths.push(records[index]!);
    } else if (record.startsWith('u ')) paths.push(v2RecordPath(record, 10));
  }
  return { ...(head ? { head } : {}), paths };
}

/**
 * The path of a porcelain v2 record: what follows its first `count` space-separated fields (8 for
 * `1`, 9 for `2`, 10 for `u`), as a path may hold spaces.
 */
export function v2RecordPath(record: string, count: number): string {
  let at = 0;
  for (let field = 0; field < count; field += 1) at = record.indexOf(' ', at) + 1;
  return record.slice(at);
}
