import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { ToolError } from '../boundary/toolError.js';

/**
 * The folder an agent's tools are rooted in. Every path a tool touches goes through `resolve`,
 * which follows symlinks and refuses anything that ends up outside the root, so an agent cannot
 * reach the main checkout (or anything else) by `..`, an absolute path or a symlink.
 */
export class Workspace {
  readonly root: string;
  /** Folders outside the root that may be read, never written (the session's spill folder). */
  private readonly readRoots: string[];

  constructor(root: string, options: { extraReadRoots?: string[] } = {}) {
    this.root = realpathSync(root);
    this.readRoots = (options.extraReadRoots ?? []).filter(existsSync).map((dir) => realpathSync(dir));
  }

  /** Adds a read-only root after construction (a spill folder created later). */
  allowRead(dir: string): void {
    const real = realpathSync(dir);
    if (!this.readRoots.includes(real)) this.readRoots.push(real);
  }

  /**
   * The real absolute path for `filePath` (absolute, or relative to the root). Throws a ToolError
   * naming the path when it resolves outside the root (or, for reads, outside the read roots).
   */
  resolve(filePath: string, access: 'read' | 'write'): string {
    if (filePath.includes('\0')) throw new ToolError(`file_path contains a NUL byte: ${JSON.stringify(filePath)}`);
    const requested = path.resolve(this.root, filePath);
    const real = realTarget(requested);
    const roots = access === 'read' ? [this.root, ...this.readRoots] : [this.root];
    if (!roots.some((root) => isInside(real, root))) {
      const how = real === requested ? '' : ` (it resolves to ${real})`;
      throw new ToolError(
        `${filePath} is outside the workspace ${this.root}${how}; ${access === 'write' ? 'writes' : 'reads'} are only allowed inside it.`,
      );
    }
    return real;
  }

  /** `abs` relative to the root, with forward slashes ("." for the root itself). */
  relative(abs: string): string {
    const rel = path.relative(this.root, abs);
    return rel === '' ? '.' : rel.split(path.sep).join('/');
  }

  /** How a tool names `abs` to the model: relative inside the root, absolute elsewhere (read roots). */
  display(abs: string): string {
    return this.contains(abs) ? this.relative(abs) : abs;
  }

  contains(abs: string): boolean {
    return isInside(abs, this.root);
  }
}

export function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Where a path really leads: symlinks followed, including dangling ones and the parents of a
 * file that does not exist yet (a new file is judged by where its folder really is).
 */
function realTarget(requested: string, depth = 0): string {
  if (depth > 40) throw new ToolError(`too many symbolic links resolving ${requested}`);
  if (existsSync(requested)) return realpathSync(requested);
  let stat;
  try {
    stat = lstatSync(requested);
  } catch {
    stat = undefined;
  }
  if (stat?.isSymbolicLink()) {
    // A dangling link: judge it by where it points, since writing it would create that target.
    const target = path.resolve(path.dirname(requested), readlinkSync(requested));
    return realTarget(target, depth + 1);
  }
  const parent = path.dirname(requested);
  if (parent === requested) return requested;
  return path.join(realTarget(parent, depth + 1), path.basename(requested));
}
