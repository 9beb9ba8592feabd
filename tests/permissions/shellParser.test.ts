import { describe, expect, it } from 'vitest';
import { parseShellCommand } from '../../shared/policy/permissions/shell/shellParser.js';

describe('parseShellCommand', () => {
  it('gives every reader of one command the same tree, frozen, so none can change what another reads', () => {
    const first = parseShellCommand('npm test 2>&1 | tail -5');
    expect(parseShellCommand('npm test 2>&1 | tail -5')).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    const stage = first.commands![0]!.commands![0]!;
    expect(stage.name?.text).toBe('npm');
    expect(Object.isFrozen(stage.name)).toBe(true);
    expect(() => {
      (stage.name as { text: string }).text = 'rm';
    }).toThrow(TypeError);
    expect(parseShellCommand('npm test 2>&1 | tail -5').commands![0]!.commands![0]!.name?.text).toBe('npm');
  });

  it('keeps only the most recent commands: an old one is parsed again, to an equal tree', () => {
    const old = parseShellCommand('echo old');
    for (let i = 0; i < 40; i += 1) parseShellCommand(`echo ${i}`);
    const again = parseShellCommand('echo old');
    expect(again).not.toBe(old);
    expect(again).toEqual(old);
  });

  it('throws for a source the parser refuses, each time it is asked', () => {
    expect(() => parseShellCommand('echo "unclosed')).toThrow();
    expect(() => parseShellCommand('echo "unclosed')).toThrow();
  });
});
