import { defineConfig } from 'vitest/config';

/** `npm run compat:claude-code`: the side-by-side check against Claude Code itself; not part of `npm test`. */
export default defineConfig({
  test: {
    include: ['compat/**/*.compat.ts'],
    testTimeout: 900_000,
    hookTimeout: 900_000,
    pool: 'forks',
  },
});
