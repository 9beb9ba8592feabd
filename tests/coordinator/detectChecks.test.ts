import { describe, expect, it } from 'vitest';
import { detectChecks } from '../../coordinator/detectChecks.js';
import { makeRepo } from '../support/gitRepo.js';

const withTest = (extra: Record<string, unknown> = {}) => JSON.stringify({ name: 'p', scripts: { test: 'vitest run' }, ...extra });

describe('the integration checks found in a repository', () => {
  it('runs package.json’s test script with the package manager `packageManager` names', () => {
    expect(detectChecks(makeRepo({ 'package.json': withTest({ packageManager: 'pnpm@9.15.0+sha512.abc' }) }))).toEqual([
      { command: 'pnpm test', because: 'package.json has a test script; its packageManager is pnpm@9.15.0+sha512.abc' },
    ]);
    expect(detectChecks(makeRepo({ 'package.json': withTest({ packageManager: 'yarn@4.5.0' }) }))[0]?.command).toBe('yarn test');
    expect(detectChecks(makeRepo({ 'package.json': withTest({ packageManager: 'bun@1.1.0' }) }))[0]?.command).toBe('bun run test');
    expect(detectChecks(makeRepo({ 'package.json': withTest({ packageManager: 'npm@10.9.0' }) }))[0]?.command).toBe('npm test');
    expect(detectChecks(makeRepo({ 'package.json': withTest({ packageManager: 'deno@2.0.0' }) }))[0]).toEqual({
      command: 'npm test',
      because: 'package.json has a test script; its packageManager deno@2.0.0 is not one orca knows, so npm runs it',
    });
  });

  it('without `packageManager`, the lock file at the root says which; none is npm', () => {
    expect(detectChecks(makeRepo({ 'package.json': withTest(), 'pnpm-lock.yaml': "lockfileVersion: '9.0'\n" }))).toEqual([
      { command: 'pnpm test', because: 'package.json has a test script; pnpm-lock.yaml is at the root' },
    ]);
    expect(detectChecks(makeRepo({ 'package.json': withTest(), 'yarn.lock': '' }))[0]?.command).toBe('yarn test');
    expect(detectChecks(makeRepo({ 'package.json': withTest(), 'package-lock.json': '{}' }))).toEqual([
      { command: 'npm test', because: 'package.json has a test script' },
    ]);
    // `packageManager` wins over a stray lock file.
    expect(detectChecks(makeRepo({ 'package.json': withTest({ packageManager: 'yarn@1.22.22' }), 'pnpm-lock.yaml': '' }))[0]?.command).toBe(
      'yarn test',
    );
  });

  it('no test script, or npm’s placeholder, is no check; other ecosystems are found beside it', () => {
    const placeholder = JSON.stringify({ scripts: { test: 'echo "Error: no test specified" && exit 1' }, packageManager: 'pnpm@9.0.0' });
    expect(detectChecks(makeRepo({ 'package.json': placeholder }))).toEqual([]);
    expect(detectChecks(makeRepo({ 'package.json': withTest(), 'go.mod': 'module x\n' })).map((c) => c.command)).toEqual([
      'npm test',
      'go test ./...',
    ]);
  });

  it('a package.json that is not JSON, or whose scripts are not strings, is one line naming the file', () => {
    const broken = makeRepo({ 'package.json': '{ "scripts": ' });
    expect(() => detectChecks(broken)).toThrow(/package\.json is not JSON \(.*\): fix it, or name the checks with --check$/);
    expect(() => detectChecks(makeRepo({ 'package.json': JSON.stringify({ scripts: { test: 1 } }) }))).toThrow(/package\.json/);
  });
});
