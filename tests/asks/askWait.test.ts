import { describe, expect, it } from 'vitest';
import { askWait, parseAskTimeout, resumedAskWait } from '../../coordinator/asks/askOptions.js';

const TEN_MINUTES = 600_000;

describe('how a run waits for an answer', () => {
  it('waits 10 minutes at a terminal, refuses at once without one, and keeps a timeout given', () => {
    expect(askWait(undefined, true)).toEqual({ timeoutMs: TEN_MINUTES, nobody: false });
    expect(askWait(undefined, false)).toEqual({ timeoutMs: 0, nobody: true });
    expect(askWait(parseAskTimeout('2s'), false)).toEqual({ timeoutMs: 2_000, nobody: false, given: 2_000 });
    expect(askWait(0, true)).toEqual({ timeoutMs: 0, nobody: false, given: 0 });
  });

  it('decides anew on resume: a run started at a terminal and resumed by a script does not wait on nobody', () => {
    // Started at a terminal without --ask-timeout: nothing given is recorded (runCommand.ts).
    expect(resumedAskWait(undefined, undefined, false)).toEqual({ timeoutMs: 0, nobody: true });
    expect(resumedAskWait(undefined, undefined, true)).toEqual({ timeoutMs: TEN_MINUTES, nobody: false });
    // The run's own --ask-timeout is kept; one given to the resume wins.
    expect(resumedAskWait(undefined, 30_000, false)).toEqual({ timeoutMs: 30_000, nobody: false, given: 30_000 });
    expect(resumedAskWait(5_000, 30_000, false)).toEqual({ timeoutMs: 5_000, nobody: false, given: 5_000 });
  });
});
