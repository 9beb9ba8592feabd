import { createHash } from 'node:crypto';
import { z } from 'zod';
import { type LineRange, LineRangeSchema } from './lineRanges.js';

/**
 * What the session knows of each file it has seen: the bytes' hash and mtime when seen, and
 * whether it saw all of it. Edit and Write consult this before touching disk; that is what turns
 * "edit a file you never read" or "overwrite a change made since" into a refusal.
 */
export interface FileStateEntry {
  /** Absolute real path. */
  path: string;
  /** sha256 of the file's bytes when seen. */
  hash: string;
  mtimeMs: number;
  /** Only part of the file was seen (Reads with offset/limit that did not cover it). */
  isPartialView: boolean;
  /** For a partial view, the lines seen of these bytes (lineRanges.ts); Edit holds each match against them. */
  seen?: LineRange[];
  /**
   * `read`: this session read it. `written`: this session wrote it (so knows all of it).
   * `inherited`: cloned from a parent agent and rebased onto this worktree.
   */
  origin: 'read' | 'written' | 'inherited';
}

/** The form a parent hands to a child in a job payload: repo-relative paths, no mtimes. */
export const InheritedFileStateSchema = z.object({
  path: z.string().min(1),
  hash: z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 hex digest'),
  partial: z.boolean(),
  /** For a partial view, the lines the parent saw; absent, none count as seen. */
  seen: z.array(LineRangeSchema).optional(),
});
export type InheritedFileState = z.infer<typeof InheritedFileStateSchema>;

export function hashBytes(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export class ReadFileState {
  private readonly entries = new Map<string, FileStateEntry>();

  get(path: string): FileStateEntry | undefined {
    return this.entries.get(path);
  }

  set(entry: FileStateEntry): void {
    this.entries.set(entry.path, entry);
  }

  delete(path: string): void {
    this.entries.delete(path);
  }

  all(): FileStateEntry[] {
    return [...this.entries.values()];
  }

  get size(): number {
    return this.entries.size;
  }

  /** An independent copy: what the copy learns never reaches this one. */
  clone(): ReadFileState {
    const copy = new ReadFileState();
    for (const entry of this.entries.values())
      copy.set({ ...entry, ...(entry.seen ? { seen: entry.seen.map(([a, b]): LineRange => [a, b]) } : {}) });
    return copy;
  }
}
