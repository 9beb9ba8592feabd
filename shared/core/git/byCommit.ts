/** A full object id: it names one commit for good, in every repository that has it (a branch or tag may move). */
const FULL_OID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * Answers about a commit's content (its tree, its top-level names), kept by the commit's full id:
 * a commit never changes, and a wave of jobs shares its start. The newest `size` are kept; a
 * failed answer is not (the next caller asks again); a name that is not a full id is never kept.
 */
export class ByCommit<T> {
  private readonly kept = new Map<string, Promise<T>>();

  constructor(private readonly size: number) {}

  /** The answer for `commit`, from `ask` the first time; `scope` (a repository) where the answer is its alone. */
  get(commit: string, ask: () => Promise<T>, scope = ''): Promise<T> {
    if (!FULL_OID.test(commit)) return ask();
    const key = `${scope}\0${commit}`;
    let found = this.kept.get(key);
    if (!found) {
      found = ask();
      found.catch(() => this.kept.delete(key));
      this.kept.set(key, found);
      if (this.kept.size > this.size) this.kept.delete(this.kept.keys().next().value!);
    }
    return found;
  }
}
