import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCode } from '../../shared/core/agents/claudeCodePreset.js';
import { packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { AgentStart } from '../../workers/agents/agentStart.js';
import { tempDir } from '../support/tempDir.js';

/**
 * An agent whose settings orca writes to a file in its private home (AcpAgent's `settings.file`:
 * Gemini CLI's `.gemini/settings.json`), over the user's own copy of that file: the agent reads
 * both merged, orca's keys winning, the user's comments and trailing commas no obstacle; a copy that
 * does not parse stops its start in one line.
 */

/** It copies the settings file its home holds into its worktree when initialized. */
const AGENT = (sdk: string) => `
import * as acp from ${JSON.stringify(sdk)};
import { copyFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
const stream = acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
new acp.AgentSideConnection(() => ({
  initialize: async () => {
    copyFileSync(process.env.HOME + '/.mine/settings.json', 'seen.json');
    return { protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: {} };
  },
  newSession: async () => ({ sessionId: 's1' }),
  authenticate: async () => ({}),
  prompt: async () => ({ stopReason: 'end_turn' }),
  cancel: async () => {},
}), stream);
`;

function started(userSettings: string): { start: AgentStart; worktree: string } {
  const worktree = tempDir('orca-settingsfile-wt-');
  const userHome = tempDir('orca-settingsfile-home-');
  mkdirSync(path.join(userHome, '.mine'));
  writeFileSync(path.join(userHome, '.mine', 'settings.json'), userSettings);
  const script = path.join(worktree, 'agent.mjs');
  writeFileSync(script, AGENT(path.join(packageRoot(), 'node_modules', '@agentclientprotocol', 'sdk', 'dist', 'acp.js')));
  const start = new AgentStart({
    agent: {
      ...claudeCode,
      name: 'mine',
      native: undefined,
      command: [process.execPath, script],
      loginFiles: ['.mine/settings.json'],
      settings: {
        file: '.mine/settings.json',
        value: { tools: { exclude: ['shell'] }, base: '{env:ANTHROPIC_BASE_URL}', gone: '{env:UNSET_HERE}' },
      },
    },
    worktree,
    sessionDir: tempDir('orca-settingsfile-session-'),
    readable: [],
    sandboxed: true,
    jobEnv: {},
    env: { ...process.env, ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' },
    userHome,
  });
  return { start, worktree };
}

describe('an agent’s settings written to a file in its home', () => {
  it('merges orca’s over the user’s own, comments and trailing commas read, orca’s keys winning', async () => {
    const { start, worktree } = started('{\n  // mine\n  "theme": "dark",\n  "tools": { "exclude": ["web"], "core": ["ls"], },\n}\n');
    try {
      await start.initialized;
      expect(JSON.parse(readFileSync(path.join(worktree, 'seen.json'), 'utf8'))).toEqual({
        theme: 'dark',
        tools: { exclude: ['shell'], core: ['ls'] },
        base: 'http://127.0.0.1:9',
      });
    } finally {
      await start.close();
    }
  });

  it('stops the start in one line when the user’s copy does not parse', async () => {
    const { start } = started('{ "theme": ');
    try {
      await expect(start.initialized).rejects.toThrow(
        /^the mine agent's settings cannot be merged into your ~\/\.mine\/settings\.json: it does not parse \(\w+ at offset \d+\); mend it and run again$/,
      );
    } finally {
      await start.close();
    }
  });
});
