import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { describeZodError } from '../shared/core/boundary/zodIssues.js';
import { UserError } from './repoCheck.js';

/** What orca reads of a package.json (a file it cannot read stops the run before it starts, exit 2): its scripts and the package manager it names. */
const PackageJsonSchema = z.object({
  scripts: z.record(z.string(), z.string()).optional(),
  packageManager: z.string().optional(),
});

/**
 * How each package manager runs a package.json script, and the lock file that shows it is the
 * one a project uses. bun's `bun test` is its own test runner, not the script: `bun run test`.
 */
const MANAGERS = [
  { name: 'pnpm', run: 'pnpm test', lock: 'pnpm-lock.yaml' },
  { name: 'yarn', run: 'yarn test', lock: 'yarn.lock' },
  { name: 'bun', run: 'bun run test', lock: 'bun.lockb' },
  { name: 'npm', run: 'npm test', lock: 'package-lock.json' },
] as const;

/**
 * The repository's package.json `test` script as its own package manager runs it: the one
 * `packageManager` names (corepack's field, `pnpm@9.1.0`), else the one whose lock file is at
 * the root, else npm. Undefined without a test script (or with npm's "no test specified").
 */
export function packageTestCommand(repo: string): { command: string; because: string } | undefined {
  const file = path.join(repo, 'package.json');
  if (!existsSync(file)) return undefined;
  const pkg = readPackageJson(file);
  const test = pkg.scripts?.test;
  if (!test || /no test specified/.test(test)) return undefined;
  const named = pkg.packageManager?.split('@', 1)[0];
  if (named) {
    const manager = MANAGERS.find((one) => one.name === named);
    if (manager) return { command: manager.run, because: `package.json has a test script; its packageManager is ${pkg.packageManager}` };
    return {
      command: 'npm test',
      because: `package.json has a test script; its packageManager ${pkg.packageManager} is not one orca knows, so npm runs it`,
    };
  }
  const locked = MANAGERS.find((one) => existsSync(path.join(repo, one.lock)));
  if (locked && locked.name !== 'npm')
    return { command: locked.run, because: `package.json has a test script; ${locked.lock} is at the root` };
  return { command: 'npm test', because: 'package.json has a test script' };
}

function readPackageJson(file: string): z.infer<typeof PackageJsonSchema> {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UserError(`${file} is not JSON (${(error as Error).message}): fix it, or name the checks with --check`);
  }
  const parsed = PackageJsonSchema.safeParse(json);
  if (!parsed.success) throw new UserError(`${describeZodError(parsed.error, file)}: fix it, or name the checks with --check`);
  return parsed.data;
}
