import { describe, expect, it } from 'vitest';
import { isCheckCommand, normalizeCommand } from '../../shared/infra/verify/evidence/checkCommand.js';

describe('check commands', () => {
  const checks = [
    'npm test',
    'npm t',
    'npm run test:unit -- --reporter dot',
    'pnpm test',
    'yarn lint',
    'bun run typecheck',
    'cd packages/api && npm test',
    'CI=1 npx vitest run tests/a.test.ts',
    'npx --yes tsc --noEmit -p tsconfig.json',
    'node_modules/.bin/eslint src',
    'pytest -q tests/test_a.py',
    'python -m pytest',
    'go test ./...',
    'cargo clippy --all-targets',
    'make',
    'make test',
    './gradlew test',
    'timeout 60 npm test',
    'npm test 2>&1 | tail -20',
    'node --test test/',
    'prettier --check .',
  ];
  const notChecks = [
    'ls -la',
    'cat package.json',
    'npm install',
    'npm run dev',
    'git status',
    'echo npm test',
    'node server.js',
    'prettier --write .',
    'go run .',
    'make clean',
    'cargo run',
    'python script.py',
  ];

  it.each(checks)('%s is a check', (command) => {
    expect(isCheckCommand(command)).toBe(true);
  });
  it.each(notChecks)('%s is not a check', (command) => {
    expect(isCheckCommand(command)).toBe(false);
  });
  it('compares commands with whitespace normalised', () => {
    expect(normalizeCommand('  npm   test \n')).toBe('npm test');
  });
});
