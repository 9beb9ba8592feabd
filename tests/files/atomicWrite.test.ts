import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ToolError } from '../../shared/core/boundary/toolError.js';
import { writeFileAtomic } from '../../shared/core/files/atomicWrite.js';
import { tempDir } from '../support/tempDir.js';

describe('writeFileAtomic', () => {
  it('replaces the content, keeps the permission bits and leaves no temporary file', () => {
    const dir = tempDir();
    const file = path.join(dir, 'run.sh');
    writeFileSync(file, '#!/bin/sh\necho old\n');
    chmodSync(file, 0o751);
    const stats = writeFileAtomic(file, Buffer.from('#!/bin/sh\necho new\n'));
    expect(readFileSync(file, 'utf8')).toBe('#!/bin/sh\necho new\n');
    expect(statSync(file).mode & 0o7777).toBe(0o751);
    expect(stats.mtimeMs).toBe(statSync(file).mtimeMs);
    expect(readdirSync(dir)).toEqual(['run.sh']);
  });

  it('creates missing parent folders when asked', () => {
    const dir = tempDir();
    const file = path.join(dir, 'a', 'b', 'c.txt');
    writeFileAtomic(file, Buffer.from('x'), { createParents: true });
    expect(readFileSync(file, 'utf8')).toBe('x');
  });

  it('fails with a ToolError naming the label when a parent is a file, leaving nothing behind', () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'plain'), 'i am a file');
    mkdirSync(path.join(dir, 'sub'));
    const attempt = () =>
      writeFileAtomic(path.join(dir, 'plain', 'x.txt'), Buffer.from('x'), { createParents: true, label: 'plain/x.txt' });
    expect(attempt).toThrow(ToolError);
    expect(attempt).toThrow(/^Could not write plain\/x\.txt \((EEXIST|ENOTDIR)[^)]*\); it was left as it was\.$/);
    expect(readFileSync(path.join(dir, 'plain'), 'utf8')).toBe('i am a file');
    expect(readdirSync(dir).sort()).toEqual(['plain', 'sub']);
  });
});
