import picomatch from 'picomatch';

/**
 * Grep's `glob` filter with ripgrep's `--glob` semantics, so the JS fallback keeps and skips the
 * same files rg does:
 * - each glob is gitignore-style: without a slash it matches the file name at any depth (`*.ts`);
 *   with one it matches the path from the search base (`src/*.ts`, `**\/*.{ts,tsx}`); a trailing
 *   `/` matches directories only; `!` in front excludes instead of includes;
 * - the last glob that matches a path decides, and that decision beats .gitignore and `type`
 *   (rg: "this always overrides any other ignore logic");
 * - when any including glob is given, a file that matches none is skipped; a directory that
 *   matches none is still entered.
 * Paths are relative to the search base, with forward slashes.
 */
export class GlobFilter {
  private readonly rules: { matches: (path: string) => boolean; exclude: boolean; dirOnly: boolean; name: boolean }[];
  private readonly anyInclude: boolean;

  constructor(globs: readonly string[]) {
    this.rules = globs.map((raw) => {
      const exclude = raw.startsWith('!');
      let glob = exclude ? raw.slice(1) : raw;
      const dirOnly = glob.endsWith('/');
      if (dirOnly) glob = glob.slice(0, -1);
      const name = !glob.includes('/');
      if (glob.startsWith('/')) glob = glob.slice(1);
      // gitignore: `dir/**` matches what is inside dir, not dir itself.
      if (glob.endsWith('/**')) glob += '/*';
      // picomatch reads `[!a]` literally; `[^a]` is the same class.
      glob = glob.replace(/(^|[^\\])\[!/g, '$1[^');
      return { matches: picomatch(glob, { dot: true }), exclude, dirOnly, name };
    });
    this.anyInclude = this.rules.some((rule) => !rule.exclude);
  }

  get isEmpty(): boolean {
    return this.rules.length === 0;
  }

  /** 'include' or 'exclude' when a glob decides for `path`; undefined when the other rules do. */
  decide(path: string, isDir: boolean): 'include' | 'exclude' | undefined {
    let baseName: string | undefined;
    for (let i = this.rules.length - 1; i >= 0; i--) {
      const rule = this.rules[i]!;
      if (rule.dirOnly && !isDir) continue;
      const subject = rule.name ? (baseName ??= path.slice(path.lastIndexOf('/') + 1)) : path;
      if (rule.matches(subject)) return rule.exclude ? 'exclude' : 'include';
    }
    return this.anyInclude && !isDir ? 'exclude' : undefined;
  }
}

/**
 * Grep's `glob` input as separate globs, read the way Claude Code reads it: split on whitespace,
 * and on commas outside braces (`*.ts,*.tsx` is two globs, `*.{ts,tsx}` is one).
 */
export function splitGlobInput(input: string): string[] {
  const globs: string[] = [];
  for (const word of input.split(/\s+/)) {
    if (word === '') continue;
    if (word.includes('{') && word.includes('}')) globs.push(word);
    else globs.push(...word.split(',').filter((part) => part !== ''));
  }
  return globs;
}
