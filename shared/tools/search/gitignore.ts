import { readFileSync } from 'node:fs';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';

export const GITIGNORE = '.gitignore';

/** Whether a path (relative, forward slashes) is `.git` or inside it: never searched or listed. */
export function insideGitFolder(rel: string): boolean {
  return rel.split('/').includes('.git');
}

/**
 * The .gitignore files that apply inside one folder: its own and its parents' up to the search
 * base, deepest first. Git's rules: a pattern is relative to the folder of its .gitignore, the
 * last matching line of a file decides for that file, a deeper file beats a shallower one.
 *
 * Each entry is judged by its own path, as rg judges it while walking: a folder that was entered
 * anyway (the folder the user asked to search, one a `glob` brings back, one a deeper .gitignore
 * re-includes) does not make everything inside it ignored. The `ignore` package always applies a
 * file's rules to the parents of a path too, so on entering such a folder the files whose rules
 * hide it are re-rooted there: their name patterns (`*.log`, `build/`) keep working inside it.
 *
 * Only .gitignore files count, as in the rg arguments Grep uses (`--no-ignore-dot`,
 * `--no-ignore-exclude`, `--no-ignore-global`): .ignore, .rgignore, .git/info/exclude and the
 * user's global excludes file are not read, so results do not depend on the machine.
 */
export class IgnoreRules {
  private constructor(
    /** The folder the patterns are relative to, from the search base ('' for the base). */
    private readonly dir: string,
    private readonly rules: Ignore | undefined,
    private readonly parent: IgnoreRules | undefined,
  ) {}

  static readonly none = new IgnoreRules('', undefined, undefined);

  /**
   * The rules inside `dir` (relative to `base`, a child of the folder these rules are for): these
   * rules, plus `dir`'s own .gitignore when it has one. `hasGitignore` lets a walker that already
   * listed the folder skip the lookup.
   */
  enter(base: string, dir: string, hasGitignore?: boolean): IgnoreRules {
    const rules = this.reroot(dir);
    if (hasGitignore === false) return rules;
    let text: string;
    try {
      text = readFileSync(path.join(base, dir, GITIGNORE), 'utf8');
    } catch (error) {
      if (isMissing(error)) return rules;
      throw error;
    }
    return new IgnoreRules(dir, ignore({ allowRelativePaths: true }).add(text), rules);
  }

  /** The rules for `dir` (relative to `base`): every .gitignore from `base` down to `dir`. */
  static forDir(base: string, dir: string): IgnoreRules {
    let rules = IgnoreRules.none.enter(base, '');
    if (dir === '' || dir === '.') return rules;
    let sofar = '';
    for (const part of dir.split('/')) {
      sofar = sofar === '' ? part : `${sofar}/${part}`;
      rules = rules.enter(base, sofar);
    }
    return rules;
  }

  /** Whether `rel` (relative to the search base, inside the folder these rules are for) is ignored. */
  ignores(rel: string, isDir: boolean): boolean {
    for (let node: IgnoreRules | undefined = this; node; node = node.parent) {
      if (!node.rules) continue;
      const verdict = node.rules.test(node.local(rel, isDir));
      if (verdict.ignored) return true;
      if (verdict.unignored) return false;
    }
    return false;
  }

  /** These rules with every file whose patterns hide `dir` re-rooted at `dir` (see the class). */
  private reroot(dir: string): IgnoreRules {
    if (!this.rules || dir === this.dir) return this;
    const parent = this.parent?.reroot(dir);
    const hides = this.rules.test(this.local(dir, true)).ignored;
    if (!hides && parent === this.parent) return this;
    return new IgnoreRules(hides ? dir : this.dir, this.rules, parent);
  }

  private local(rel: string, isDir: boolean): string {
    const inside = this.dir === '' ? rel : rel.slice(this.dir.length + 1);
    return isDir ? `${inside}/` : inside;
  }
}

/**
 * Answers "is this file gitignored?" for paths found some other way (Glob's matches): checks
 * every folder on the way down, so a file under an ignored folder is ignored too, except the
 * folder the search was asked to start in (`start`) and its parents, which count as entered.
 * Folder rules are loaded once and cached.
 */
export class GitignoreFilter {
  private readonly rulesByDir = new Map<string, IgnoreRules>();
  private readonly dirIgnored = new Map<string, boolean>();

  /** `base` is the folder paths are relative to; `start` (relative to it) where the search began. */
  constructor(
    private readonly base: string,
    private readonly start = '',
  ) {}

  ignores(rel: string): boolean {
    const slash = rel.lastIndexOf('/');
    const dir = slash === -1 ? '' : rel.slice(0, slash);
    if (dir !== '' && this.isDirIgnored(dir)) return true;
    return this.rulesFor(dir).ignores(rel, false);
  }

  private isDirIgnored(dir: string): boolean {
    let known = this.dirIgnored.get(dir);
    if (known === undefined && (dir === this.start || this.start.startsWith(`${dir}/`))) known = false;
    if (known === undefined) {
      const slash = dir.lastIndexOf('/');
      const parent = slash === -1 ? '' : dir.slice(0, slash);
      known = (parent !== '' && this.isDirIgnored(parent)) || this.rulesFor(parent).ignores(dir, true);
      this.dirIgnored.set(dir, known);
    }
    return known;
  }

  private rulesFor(dir: string): IgnoreRules {
    let rules = this.rulesByDir.get(dir);
    if (!rules) {
      if (dir === '') {
        rules = IgnoreRules.none.enter(this.base, '');
      } else {
        const slash = dir.lastIndexOf('/');
        rules = this.rulesFor(slash === -1 ? '' : dir.slice(0, slash)).enter(this.base, dir);
      }
      this.rulesByDir.set(dir, rules);
    }
    return rules;
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  // EISDIR: a folder named .gitignore holds no rules.
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR';
}
