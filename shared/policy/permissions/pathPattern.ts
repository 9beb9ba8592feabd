import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { isInside } from '../../core/files/workspace.js';

export interface PathAnchors {
  /** The project root: `/src/**`, `./src/**` and `src/**` are relative to it. */
  root: string;
  /** The user's home: `~/…`. */
  home: string;
}

/**
 * Whether a path rule's specifier (`Read(./secrets/**)`, `Edit(//etc/**)`) covers `absPath`.
 * Claude Code's forms: `//x` from the filesystem root, `~/x` from the home folder, `/x` from the
 * project root, `./x` or `x` from the working directory (the project root here). Patterns follow
 * gitignore rules, so a pattern with no slash (`*.env`) matches at any depth and a folder
 * covers everything inside it.
 */
export function pathPatternMatches(specifier: string, absPath: string, anchors: PathAnchors): boolean {
  const { anchor, pattern } = anchorOf(specifier, anchors);
  if (/^\/?\*\*?$/.test(pattern)) return isInside(absPath, anchor);
  const relative = path.relative(anchor, absPath);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return false;
  return matcher(pattern).ignores(relative.split(path.sep).join('/'));
}

function anchorOf(specifier: string, anchors: PathAnchors): { anchor: string; pattern: string } {
  if (specifier.startsWith('//')) return { anchor: '/', pattern: specifier.slice(1) };
  if (specifier === '~') return { anchor: anchors.home, pattern: '**' };
  if (specifier.startsWith('~/')) return { anchor: anchors.home, pattern: `/${specifier.slice(2)}` };
  if (specifier.startsWith('./')) return { anchor: anchors.root, pattern: `/${specifier.slice(2)}` };
  return { anchor: anchors.root, pattern: specifier };
}

const matchers = new Map<string, Ignore>();

function matcher(pattern: string): Ignore {
  let found = matchers.get(pattern);
  if (!found) {
    found = ignore().add(pattern);
    matchers.set(pattern, found);
  }
  return found;
}
