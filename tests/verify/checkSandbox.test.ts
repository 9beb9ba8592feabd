import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SandboxMode } from '../../shared/core/runtime/sandboxMode.js';
import type { CheckNetwork } from '../../shared/core/sandbox/checkNetwork.js';
import { runCheck } from '../../shared/infra/verify/checks/checkRun.js';
import { type CheckLauncher, checkLauncher } from '../../shared/infra/verify/checks/checkSandbox.js';
import { makeRepo } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';

/** The variables a check must never see, set for each test and restored after. */
const SECRETS = {
  ANTHROPIC_API_KEY: 'sk-ant-check-sandbox-test-0123456789',
  ORCA_BOARD_TOKEN: 'board-token-check-sandbox-test',
  REDIS_URL: 'redis://:redis-pass-check-sandbox@127.0.0.1:6379/0',
};
const saved = Object.fromEntries(Object.keys(SECRETS).map((name) => [name, process.env[name]]));
beforeEach(() => Object.assign(process.env, SECRETS));
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

function launcherFor(
  worktree: string,
  options: { network?: CheckNetwork; path?: string; readable?: string[]; mode?: SandboxMode } = {},
): CheckLauncher {
  return checkLauncher({
    mode: options.mode ?? 'auto',
    worktree,
    tempDir: tempDir(),
    network: options.network ?? 'proxy',
    domains: [],
    readable: options.readable ?? [],
    env: options.path ? { PATH: options.path } : process.env,
  });
}

const ENV_DUMP = 'echo "key=${ANTHROPIC_API_KEY-unset} board=${ORCA_BOARD_TOKEN-unset} redis=${REDIS_URL-unset}"';

describe('integration checks run agent-written code without orca’s credentials', () => {
  for (const mode of ['bwrap', 'none'] as const) {
    it(`hides ANTHROPIC_API_KEY, ORCA_BOARD_TOKEN and where orca's Redis is (${mode})`, async () => {
      const repo = makeRepo();
      const launcher = launcherFor(repo, mode === 'none' ? { path: tempDir() } : {});
      expect(launcher.sandbox).toBe(mode);
      const evidence = await runCheck({ command: ENV_DUMP }, { cwd: repo, logDir: tempDir(), launcher });
      expect(evidence.exit_code).toBe(0);
      expect(readFileSync(evidence.log, 'utf8').trim()).toBe('key=unset board=unset redis=unset');
    });
  }
});

describe('integration checks in the bwrap sandbox', () => {
  it('may write their worktree and /tmp, and nothing else: a write outside it fails', async () => {
    const repo = makeRepo();
    // Outside the worktree but inside this test's own folder: without a sandbox nothing would stop it.
    const outside = path.join(tempDir(), 'outside');
    mkdirSync(outside);
    // Made visible, as the repository is: read-only, like the rest of the host.
    const launcher = launcherFor(repo, { readable: [outside] });
    expect(launcher.sandbox).toBe('bwrap');
    const evidence = await runCheck(
      { command: `echo in > inside.txt && echo t > /tmp/t.txt && echo out > ${outside}/escaped.txt` },
      { cwd: repo, logDir: tempDir(), launcher },
    );
    expect(evidence.exit_code).not.toBe(0);
    expect(readFileSync(evidence.log, 'utf8')).toMatch(/Read-only file system/);
    expect(readFileSync(path.join(repo, 'inside.txt'), 'utf8')).toBe('in\n');
    expect(existsSync(path.join(outside, 'escaped.txt'))).toBe(false);
  });

  it('get a network of their own by default and with --check-network none, the host network only with --check-network host', async () => {
    const repo = makeRepo();
    const probe = "tail -n +3 /proc/net/dev | grep -cv '^ *lo:' || true";
    const count = async (network: CheckNetwork) => {
      const evidence = await runCheck({ command: probe }, { cwd: repo, logDir: tempDir(), launcher: launcherFor(repo, { network }) });
      return Number(readFileSync(evidence.log, 'utf8').trim());
    };
    expect(await count('proxy')).toBe(0);
    expect(await count('none')).toBe(0);
    expect(await count('host')).toBeGreaterThan(0);
  });

  it('run unsandboxed under --sandbox off, although bwrap works here', () => {
    const launcher = launcherFor(makeRepo(), { mode: 'off' });
    expect(launcher).toEqual({ sandbox: 'none', problem: '--sandbox off' });
  });
});
