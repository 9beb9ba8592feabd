import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { packageTestCommand } from './packageScript.js';

/**
 * The integration checks orca runs when `--check` names none: the repository's own test command,
 * as it finds it. Returns the commands and how each was found, so the run can say which.
 */
export function detectChecks(repo: string): Array<{ command: string; because: string }> {
  const found: Array<{ command: string; because: string }> = [];
  const packageTest = packageTestCommand(repo);
  if (packageTest) found.push(packageTest);
  if (['pytest.ini', 'conftest.py', 'tox.ini'].some((f) => existsSync(path.join(repo, f))) || pyprojectHasPytest(repo)) {
    found.push({ command: 'pytest', because: 'the repository is set up for pytest' });
  }
  if (existsSync(path.join(repo, 'go.mod'))) found.push({ command: 'go test ./...', because: 'go.mod' });
  if (existsSync(path.join(repo, 'Cargo.toml'))) found.push({ command: 'cargo test', because: 'Cargo.toml' });
  return found;
}

function pyprojectHasPytest(repo: string): boolean {
  const file = path.join(repo, 'pyproject.toml');
  return existsSync(file) && /\[tool\.pytest/.test(readFileSync(file, 'utf8'));
}
