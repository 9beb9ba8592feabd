import { describe, expect, it } from 'vitest';
import { hashBytes, ReadFileState } from '../../shared/core/files/readFileState.js';
import { checkFreshness, describeView, recordWritten } from '../../shared/core/files/staleness.js';

const path = '/ws/a.ts';
const hash = hashBytes('const a = 1;\n');

describe('checkFreshness', () => {
  it('says unread when the session has no entry', () => {
    expect(checkFreshness(new ReadFileState(), { path, hash, mtimeMs: 1 })).toEqual({ kind: 'unread' });
  });

  it('says partial for a partial view of the same bytes, naming the lines seen', () => {
    const state = new ReadFileState();
    state.set({ path, hash, mtimeMs: 1, seen: [[10, 14]], isPartialView: true, origin: 'read' });
    const freshness = checkFreshness(state, { path, hash, mtimeMs: 1 });
    expect(freshness.kind).toBe('partial');
    if (freshness.kind === 'partial') expect(describeView(freshness.entry)).toBe('only lines 10–14');
    state.set({
      path,
      hash,
      mtimeMs: 1,
      seen: [
        [1, 3],
        [8, 8],
      ],
      isPartialView: true,
      origin: 'read',
    });
    expect(describeView(state.get(path)!)).toBe('only lines 1–3 and 8');
  });

  it('says changed for a partial view of other bytes: what was seen of them no longer counts', () => {
    const state = new ReadFileState();
    state.set({ path, hash, mtimeMs: 1, seen: [[1, 5]], isPartialView: true, origin: 'read' });
    expect(checkFreshness(state, { path, hash: hashBytes('other'), mtimeMs: 1 }).kind).toBe('changed');
  });

  it('says changed when the bytes differ, even with the mtime unmoved', () => {
    const state = new ReadFileState();
    state.set({ path, hash, mtimeMs: 1000, isPartialView: false, origin: 'read' });
    expect(checkFreshness(state, { path, hash: hashBytes('other'), mtimeMs: 1000 }).kind).toBe('changed');
    expect(checkFreshness(state, { path, hash: hashBytes('other'), mtimeMs: 2000 })).toMatchObject({ kind: 'changed', mtimeMs: 2000 });
  });

  it('says current when only the mtime moved, and refreshes the entry to it', () => {
    const state = new ReadFileState();
    state.set({ path, hash, mtimeMs: 1000, isPartialView: false, origin: 'inherited' });
    expect(checkFreshness(state, { path, hash, mtimeMs: 5000 })).toMatchObject({
      kind: 'current',
      entry: { mtimeMs: 5000, origin: 'inherited' },
    });
    expect(state.get(path)?.mtimeMs).toBe(5000);
  });
});

describe('recordWritten', () => {
  it('records a full view of what was written, origin written', () => {
    const state = new ReadFileState();
    state.set({ path, hash, mtimeMs: 1, seen: [[1, 2]], isPartialView: true, origin: 'read' });
    recordWritten(state, path, Buffer.from('new'), 42);
    expect(state.get(path)).toEqual({ path, hash: hashBytes('new'), mtimeMs: 42, isPartialView: false, origin: 'written' });
  });
});
