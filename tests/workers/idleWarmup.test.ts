import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { warmWhileIdle } from '../../workers/idleWarmup.js';

const require = createRequire(import.meta.url);
const parserFile = require.resolve('@ericcornelissen/bash-parser');
const loaded = () => require.cache[parserFile] !== undefined;
const nextTimers = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('warmWhileIdle', () => {
  it('leaves the shell parser to a job already running, and loads it while the worker has none', async () => {
    // Nothing in this file's process has parsed a command yet.
    expect(loaded()).toBe(false);
    warmWhileIdle({ activeJobs: 1 });
    await nextTimers();
    expect(loaded()).toBe(false);
    warmWhileIdle({ activeJobs: 0 });
    await nextTimers();
    expect(loaded()).toBe(true);
  });
});
