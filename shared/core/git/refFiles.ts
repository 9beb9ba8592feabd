import { type Dirent, existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gitCommonDir, ownGitDir } from './gitFolders.js';

/**
 * A repository's refs read from its files (the "files" ref backend: `HEAD`, loose refs under
 * `refs/`, `packed-refs`), for what a file read answers without a git process: HEAD, a branch's
 * commit, the branches and tags. A repository whose refs are not in files (reftable) has no
 * RefFiles: `open` returns undefined, and the caller asks git.
 *
 * Per-worktree refs (HEAD and the other pseudo-refs, `refs/bisect/`, `refs/worktree/`,
 * `refs/rewritten/`) are read from the worktree's own git folder, every other from the common one;
 * a loose ref wins over its packed entry; symbolic refs are followed as git does (at most 5 deep).
 */

/** A ref that names a commit or another ref: `ref: refs/heads/main`, or an object id. */
export type RefValue = { kind: 'symbolic'; target: string } | { kind: 'oid'; oid: string };

/** git's SYMREF_MAXDEPTH: a longer chain is a loop, or broken. */
const MAX_DEPTH = 5;
const OID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const PER_WORKTREE = ['refs/bisect/', 'refs/worktree/', 'refs/rewritten/'];

export class RefFiles {
  private constructor(
    /** The worktree's own git folder (`.git`, or `.git/worktrees/<id>` for a linked worktree). */
    readonly gitDir: string,
    /** The folder the repository's worktrees share (objects, shared refs, config). */
    readonly commonDir: string,
  ) {}

  /**
   * The refs of the worktree (or checkout) at `root`, its top folder: found through its `.git`
   * folder or pointer file and `commondir`. Undefined when `root` has no `.git`, or its refs are
   * not kept in files.
   */
  static open(root: string): RefFiles | undefined {
    let gitDir: string | undefined;
    try {
      gitDir = ownGitDir(root);
    } catch {
      return undefined; // An unreadable `.git`: git is asked, and says what is wrong.
    }
    return gitDir === undefined ? undefined : RefFiles.ofGitDir(gitDir);
  }

  /** The refs of a git folder itself (a worktree's, or a repository's). */
  static ofGitDir(gitDir: string): RefFiles | undefined {
    let commonDir: string;
    try {
      commonDir = gitCommonDir(gitDir);
    } catch {
      return undefined;
    }
    if (!existsSync(path.join(gitDir, 'HEAD'))) return undefined;
    // reftable keeps refs in tables of its own; its HEAD file is a stub that says nothing.
    if (existsSync(path.join(commonDir, 'reftable')) || /^\s*refstorage\s*=/im.test(readIfThere(path.join(commonDir, 'config')) ?? ''))
      return undefined;
    return new RefFiles(gitDir, commonDir);
  }

  /** HEAD as written: the branch it names (`refs/heads/…`), or the commit of a detached HEAD. */
  head(): RefValue {
    const value = this.readLoose('HEAD');
    if (!value) throw new Error(`${path.join(this.gitDir, 'HEAD')} names no branch or commit`);
    return value;
  }

  /** The object a ref names, following symbolic refs; undefined when the ref (or its target, for an unborn branch) is missing. */
  resolve(name: string, packed = this.packed()): string | undefined {
    const found = this.follow(name, packed);
    if (typeof found === 'object') throw new Error(found.broken);
    return found;
  }

  /** A ref followed to its object: the object id, undefined when missing, or why it is broken. */
  private follow(name: string, packed: Map<string, RefValue>): string | undefined | { broken: string } {
    let current = name;
    for (let depth = 0; depth <= MAX_DEPTH; depth += 1) {
      const text = this.readLooseText(current);
      const value = text === undefined ? packed.get(current) : parseRef(text);
      if (text !== undefined && !value)
        return { broken: `the ref file ${this.loosePath(current)} holds neither an object id nor "ref: …"` };
      if (!value) return undefined;
      if (value.kind === 'oid') return value.oid;
      current = value.target;
    }
    return { broken: `the ref ${name} is a chain of more than ${MAX_DEPTH} symbolic refs (a loop?) in ${this.commonDir}` };
  }

  /**
   * Every ref under the prefixes (`refs/heads/`, `refs/tags/`) with the object it names, as
   * `git for-each-ref` lists them: symbolic ones followed, broken ones (a file of garbage, a
   * dangling or looping symbolic ref) left out, as git leaves them out ("ignoring broken ref").
   * Refs under `except` (folder prefixes such as `refs/heads/orca/`) are neither read nor listed:
   * orca's own, which a repository gathers by the thousand over its runs, cost the callers that
   * leave them out nothing (2,400 of them made each look at the refs 47 ms).
   */
  list(prefixes: readonly string[], except: readonly string[] = []): Map<string, string> {
    const names = new Set<string>();
    const kept = (name: string) => !except.some((prefix) => name.startsWith(prefix));
    // Loose first, then packed: `git pack-refs` writes packed-refs before it deletes the loose file.
    for (const prefix of prefixes) for (const name of this.looseNames(prefix, kept)) names.add(name);
    const packed = this.packed();
    for (const name of packed.keys()) if (prefixes.some((prefix) => name.startsWith(prefix)) && kept(name)) names.add(name);
    const found = new Map<string, string>();
    for (const name of [...names].sort()) {
      const oid = this.follow(name, packed);
      if (typeof oid === 'string') found.set(name, oid);
    }
    return found;
  }

  /** The file a loose ref lives in: the worktree's own folder for per-worktree refs, else the common one. */
  private loosePath(name: string): string {
    const worktreeOf = /^worktrees\/([^/]+)\/(.+)$/.exec(name);
    if (worktreeOf) return path.join(this.commonDir, 'worktrees', worktreeOf[1]!, worktreeOf[2]!);
    if (name.startsWith('main-worktree/')) return path.join(this.commonDir, name.slice('main-worktree/'.length));
    // `refs` itself (a listing of every ref) is the common folder's; other names without a slash are pseudo-refs (HEAD).
    const perWorktree = (!name.includes('/') && name !== 'refs') || PER_WORKTREE.some((prefix) => name.startsWith(prefix));
    return path.join(perWorktree ? this.gitDir : this.commonDir, name);
  }

  private readLoose(name: string): RefValue | undefined {
    const text = this.readLooseText(name);
    if (text === undefined) return undefined;
    const value = parseRef(text);
    if (!value) throw new Error(`the ref file ${this.loosePath(name)} holds neither an object id nor "ref: …"`);
    return value;
  }

  private readLooseText(name: string): string | undefined {
    if (name.split('/').some((part) => part === '' || part === '.' || part === '..')) return undefined;
    return readIfThere(this.loosePath(name));
  }

  /** Loose ref names under a prefix (`refs/heads/`): files walked, git's lock files left out, and whatever `kept` refuses (a folder's name with its `/`). */
  private looseNames(prefix: string, kept: (name: string) => boolean): string[] {
    const names: string[] = [];
    const walk = (relative: string) => {
      let entries: Dirent[];
      try {
        entries = readdirSync(path.join(this.loosePath(relative.replace(/\/$/, ''))), { withFileTypes: true });
      } catch {
        return; // No such folder: no loose refs under it.
      }
      for (const entry of entries) {
        const name = `${relative}${entry.name}`;
        if (entry.isDirectory()) {
          if (kept(`${name}/`)) walk(`${name}/`);
        } else if (entry.isFile() && !entry.name.endsWith('.lock') && kept(name)) names.push(name);
      }
    };
    walk(prefix.endsWith('/') ? prefix : `${prefix}/`);
    return names;
  }

  /** `packed-refs`: one `<oid> <name>` a line (peeled `^<oid>` lines and the header skipped). */
  private packed(): Map<string, RefValue> {
    const found = new Map<string, RefValue>();
    const text = readIfThere(path.join(this.commonDir, 'packed-refs'));
    if (text === undefined) return found;
    for (const line of text.split('\n')) {
      if (line === '' || line.startsWith('#') || line.startsWith('^')) continue;
      const [oid, name] = line.split(' ');
      if (!oid || !name || !OID.test(oid))
        throw new Error(`${path.join(this.commonDir, 'packed-refs')} has a line git did not write: ${line}`);
      found.set(name, { kind: 'oid', oid });
    }
    return found;
  }
}

/** A loose ref file's content: `ref: <name>` or an object id; undefined for anything else. */
function parseRef(text: string): RefValue | undefined {
  const value = text.trim();
  if (value.startsWith('ref:')) return { kind: 'symbolic', target: value.slice(4).trim() };
  if (OID.test(value)) return { kind: 'oid', oid: value };
  return undefined;
}

function readIfThere(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Missing, or a folder of refs where a ref was asked for (`refs/heads` itself).
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return undefined;
    throw error;
  }
}
