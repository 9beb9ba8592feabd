import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultOrcaHome, hasDotFolder, noteLegacyHome } from '../../shared/core/runtime/defaultOrcaHome.js';
import { OrcaHome } from '../../shared/core/runtime/orcaHome.js';
import { tempDir } from '../support/tempDir.js';

describe('the default ORCA_HOME', () => {
  it('has no dot-folder in its path: XDG_STATE_HOME when dot-free, else ~/orca-state, else /var/tmp/orca-<uid>', () => {
    const home = tempDir('orca-home-default-');
    expect(defaultOrcaHome({ XDG_STATE_HOME: path.join(home, 'state') }, home)).toBe(path.join(home, 'state', 'orca'));
    // Its own default, ~/.local/state, has a dot-folder: not used.
    expect(defaultOrcaHome({ XDG_STATE_HOME: path.join(home, '.local', 'state') }, home)).toBe(path.join(home, 'orca-state'));
    expect(defaultOrcaHome({ XDG_STATE_HOME: 'relative/state' }, home)).toBe(path.join(home, 'orca-state'));
    expect(defaultOrcaHome({}, home)).toBe(path.join(home, 'orca-state'));
    expect(defaultOrcaHome({}, path.join(home, '.hidden-home'))).toBe(`/var/tmp/orca-${os.userInfo().uid}`);
    for (const chosen of [defaultOrcaHome({}, home), defaultOrcaHome({}, path.join(home, '.x'))]) expect(hasDotFolder(chosen)).toBe(false);
  });

  it('names the integration worktree without a dot: _integration, which no subtask id can be', () => {
    const home = new OrcaHome(tempDir('orca-home-int-'));
    expect(home.integrationWorktree('r1')).toBe(path.join(home.root, 'worktrees', 'r1', '_integration'));
    expect(hasDotFolder(home.integrationWorktree('r1'))).toBe(false);
  });

  it("keeps a user's own ORCA_HOME, dot-folder or not", () => {
    const own = path.join(tempDir('orca-home-own-'), '.mine');
    expect(new OrcaHome(own).root).toBe(own);
  });

  it('finds the old ~/.orca: copies its memory cards over once and says where its runs stay', () => {
    const home = tempDir('orca-home-legacy-');
    mkdirSync(path.join(home, '.orca', 'memory'), { recursive: true });
    writeFileSync(path.join(home, '.orca', 'memory', 'card.md'), 'a card\n');
    const root = defaultOrcaHome({}, home);
    mkdirSync(root, { recursive: true });
    const line = noteLegacyHome(root, {}, home);
    expect(line).toBe(
      `ORCA_HOME's default is now ${root} (no dot-folder in a worktree's path); earlier runs stay in ${path.join(home, '.orca')}, its memory cards were copied over: \`ORCA_HOME=${path.join(home, '.orca')} orca clean\` removes them`,
    );
    expect(readFileSync(path.join(root, 'memory', 'card.md'), 'utf8')).toBe('a card\n');
    // Said once per home; never when the user set ORCA_HOME.
    expect(noteLegacyHome(root, {}, home)).toBeUndefined();
    const other = path.join(home, 'other');
    mkdirSync(other);
    expect(noteLegacyHome(other, { ORCA_HOME: other }, home)).toBeUndefined();
    expect(existsSync(path.join(other, 'memory'))).toBe(false);
  });
});
