import { chmodSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCode } from '../../shared/core/agents/claudeCodePreset.js';
import { packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { chooseNative, speaksTo } from '../../workers/agents/nativeProgram.js';
import { tempDir } from '../support/tempDir.js';

/**
 * Which Claude Code the claude-code preset runs (issue 34): a native `claude` on PATH that its
 * adapter's Agent SDK speaks to, else the SDK's own, and the user's CLAUDE_CODE_EXECUTABLE above both.
 */

/** A folder on PATH holding a `claude` that answers `--version` with `version`. */
function claudeOnPath(version: string): { bin: string; file: string } {
  const bin = tempDir('orca-native-bin-');
  const file = path.join(bin, 'claude');
  writeFileSync(file, `#!/bin/sh\necho '${version} (Claude Code)'\n`);
  chmodSync(file, 0o755);
  return { bin, file: realpathSync(file) };
}

/** An adapter program installed beside an Agent SDK built with Claude Code `built`. */
function adapterBeside(built: string): string {
  const root = tempDir('orca-native-adapter-');
  const sdk = path.join(root, 'node_modules', '@anthropic-ai', 'claude-agent-sdk');
  mkdirSync(sdk, { recursive: true });
  writeFileSync(path.join(sdk, 'package.json'), JSON.stringify({ name: '@anthropic-ai/claude-agent-sdk', claudeCodeVersion: built }));
  const bin = path.join(root, 'node_modules', '.bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(path.join(bin, 'claude-agent-acp'), '#!/bin/sh\n');
  return path.join(bin, 'claude-agent-acp');
}

const env = (bin: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ PATH: `${bin}:/usr/bin:/bin`, ...extra });

describe('the Claude Code the claude-code preset runs', () => {
  it('is the native claude on PATH when it is as new as the adapter’s Agent SDK, said in its note', async () => {
    const claude = claudeOnPath('2.1.90');
    const choice = await chooseNative(claudeCode, adapterBeside('2.1.83'), env(claude.bin));
    expect(choice).toMatchObject({ env: { CLAUDE_CODE_EXECUTABLE: claude.file }, program: claude.file, level: 'info' });
    expect(choice?.note).toBe(
      `the claude-code agent runs the native Claude Code 2.1.90 on PATH (${claude.file}; its Agent SDK was built with 2.1.83); set CLAUDE_CODE_EXECUTABLE to choose another`,
    );
  });

  it('is the Agent SDK’s own when the native one is older or of another major, saying why', async () => {
    for (const version of ['2.1.50', '3.0.0', '1.9.99']) {
      const claude = claudeOnPath(version);
      const choice = await chooseNative(claudeCode, adapterBeside('2.1.83'), env(claude.bin));
      expect(choice?.env).toEqual({});
      expect(choice?.level).toBe('warn');
      expect(choice?.note).toBe(
        `the claude-code agent runs the Claude Code its Agent SDK bundles: the native claude on PATH (${claude.file}) is ${version}, and its Agent SDK speaks to Claude Code 2.1.83 (same major, no older)`,
      );
    }
  });

  it('is the Agent SDK’s own when no claude is on PATH', async () => {
    const choice = await chooseNative(claudeCode, adapterBeside('2.1.83'), env(tempDir('orca-native-empty-')));
    expect(choice).toMatchObject({ env: {}, level: 'info' });
    expect(choice?.note).toMatch(/runs the Claude Code its Agent SDK bundles \(no native claude on PATH/);
  });

  it('is the user’s own CLAUDE_CODE_EXECUTABLE, which orca leaves as it is, over a native one on PATH', async () => {
    const claude = claudeOnPath('2.1.90');
    const own = claudeOnPath('2.0.1');
    const choice = await chooseNative(claudeCode, adapterBeside('2.1.83'), env(claude.bin, { CLAUDE_CODE_EXECUTABLE: own.file }));
    expect(choice).toMatchObject({ env: {}, program: own.file });
    expect(choice?.note).toBe(`the claude-code agent runs the Claude Code CLAUDE_CODE_EXECUTABLE names: ${own.file}`);
  });

  it('reads the version the installed adapter’s own Agent SDK was built with', async () => {
    const claude = claudeOnPath('2.1.83');
    const adapter = path.join(packageRoot(), 'node_modules', '.bin', 'claude-agent-acp');
    const choice = await chooseNative(claudeCode, adapter, env(claude.bin));
    expect(choice?.note).toContain('its Agent SDK was built with 2.1.83');
  });

  it('compares versions by major, then no older', () => {
    expect(speaksTo('2.1.83', '2.1.83')).toBe(true);
    expect(speaksTo('2.1.328', '2.1.83')).toBe(true);
    expect(speaksTo('2.2.0', '2.1.83')).toBe(true);
    expect(speaksTo('2.1.82', '2.1.83')).toBe(false);
    expect(speaksTo('2.0.99', '2.1.83')).toBe(false);
    expect(speaksTo('3.0.0', '2.1.83')).toBe(false);
    expect(speaksTo('not a version', '2.1.83')).toBe(false);
  });
});
