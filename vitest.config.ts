import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // Fails the suite naming any process a test started that is still running when it ends.
    globalSetup: ['tests/support/leftProcesses.ts'],
    exclude: ['**/node_modules/**'],
    // Tests start real processes, git repositories and Redis connections: give them room,
    // and keep files in separate processes so a leaked handle cannot hide in another file.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
  },
});
