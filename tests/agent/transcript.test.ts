import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stamp } from '../../shared/core/events/agentEvent.js';
import { Transcript } from '../../shared/core/loop/transcript.js';
import { agentShellEnv } from '../../shared/core/runtime/agentEnv.js';
import { SecretRedactor } from '../../shared/core/runtime/secretRedaction.js';
import { tempDir } from '../support/tempDir.js';

describe('transcripts', () => {
  it('writes one JSON line per event, without text deltas, with secrets redacted', () => {
    const env = { ANTHROPIC_API_KEY: 'sk-ant-api03-abcdefghijklmnop', MY_SERVICE_TOKEN: 'plain-value-1234', PATH: '/usr/bin' };
    const file = path.join(tempDir(), 'transcript.jsonl');
    const transcript = new Transcript(file, { run: 'r1', task: 't1' }, new SecretRedactor(env));
    transcript.record(stamp({ type: 'text_delta', text: 'partial' }));
    transcript.record(
      stamp({
        type: 'tool_call',
        turn: 1,
        id: 'x',
        name: 'Bash',
        input: { command: 'curl -H "x-api-key: sk-ant-api03-abcdefghijklmnop" http://h' },
      }),
    );
    transcript.record(stamp({ type: 'assistant_text', turn: 1, text: 'token=plain-value-1234 and ghp_abcdefghijklmnopqrstuv' }));
    transcript.flush();
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((l) => l.type)).toEqual(['tool_call', 'assistant_text']);
    expect(lines[0]).toMatchObject({ run: 'r1', task: 't1', name: 'Bash' });
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('abcdefghijklmnop');
    expect(text).not.toContain('plain-value-1234');
    expect(text).not.toContain('ghp_abcdefghijklmnopqrstuv');
    expect(text).toContain('[redacted]');
  });

  it('keeps secrets out of the environment an agent shell gets', () => {
    const env = agentShellEnv({
      ANTHROPIC_API_KEY: 'k'.repeat(20),
      GITHUB_TOKEN: 'g'.repeat(20),
      DB_PASSWORD: 'p',
      HOME: '/root',
      PATH: '/bin',
    });
    expect(env).toEqual({ HOME: '/root', PATH: '/bin' });
  });
});
