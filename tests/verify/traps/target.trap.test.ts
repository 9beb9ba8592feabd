import { realpathSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import getPort from 'get-port';
import { describe, expect, it } from 'vitest';
import { type ProcessGroup, spawnGroup } from '../../../shared/core/runtime/processGroup.js';
import { PortLeaser } from '../../../shared/infra/ports/portLease.js';
import { runCheck } from '../../../shared/infra/verify/checks/checkRun.js';
import { listenersOn } from '../../../shared/infra/verify/evidence/portOwner.js';
import { gateIntegration } from '../../../shared/infra/verify/gates/integrationGates.js';
import { testRedis } from '../../support/redis.js';
import { tempDir } from '../../support/tempDir.js';
import { addProject } from './trapKit.js';

/**
 * Trap: a test server started from another folder on another port. The check talks to it and
 * passes, but it is testing yesterday's build, not this worktree.
 */
const SERVER = [
  "import http from 'node:http';",
  'const port = Number(process.env.PORT);',
  "http.createServer((req, res) => res.end('ok from ' + process.cwd())).listen(port, '127.0.0.1');",
  '',
].join('\n');

/** A check that fetches the page and passes when the server answers. */
function fetchCheck(port: string): string {
  return `node -e "fetch('http://127.0.0.1:${port}/').then((r) => r.text()).then((t) => { console.log(t); process.exit(t.startsWith('ok') ? 0 : 1); })"`;
}

async function startServer(cwd: string, port: number): Promise<ProcessGroup> {
  const group = await spawnGroup(process.execPath, ['server.mjs'], { cwd, env: { ...process.env, PORT: String(port) } });
  for (let tries = 0; !listenersOn([port]).has(port); tries += 1) {
    if (tries > 400) throw new Error(`the test server on port ${port} never listened`);
    await sleep(25);
  }
  return group;
}

async function withLease<T>(body: (ports: number[]) => Promise<T>): Promise<T> {
  const { redis, keys } = testRedis();
  const lease = await new PortLeaser(redis, keys).lease(2, 'job-target-trap');
  try {
    return await body(lease.ports);
  } finally {
    await lease.release();
  }
}

describe('trap: a test server started from another folder on another port (target)', () => {
  it('is caught: the port is not leased to the job and the server does not run from its worktree', async () => {
    const { dir, base } = addProject({ 'server.mjs': SERVER });
    const yesterday = addProject({ 'server.mjs': SERVER }).dir;
    await withLease(async (leased) => {
      const strayPort = await getPort({ exclude: leased });
      const stray = await startServer(yesterday, strayPort);
      try {
        const evidence = await runCheck(
          { command: fetchCheck(String(strayPort)) },
          { cwd: dir, logDir: tempDir(), env: { PORT: String(leased[0]) } },
        );
        expect(evidence.exit_code).toBe(0);
        expect(evidence.targets).toEqual([
          { port: strayPort, seen: 'before', pid: stray.pgid, cwd: realpathSync(yesterday), command: `${process.execPath} server.mjs` },
        ]);

        const gated = await gateIntegration({ evidence: [evidence], worktree: dir, leasedPorts: leased, audit: { repo: dir, base } });
        const target = gated.gates.find((gate) => gate.name === 'target')!;
        expect(target.ok).toBe(false);
        expect(target.reason).toContain(`talks to port ${strayPort}, which is not leased to this job (its ports: ${leased.join(', ')})`);
        expect(target.reason).toContain(
          `the server on port ${strayPort} (pid ${stray.pgid}, \`${process.execPath} server.mjs\`) runs from ${realpathSync(yesterday)}, not from this worktree ${realpathSync(dir)}`,
        );
        expect(gated.checks[0]!.status).toBe('not_run');
        expect(gated.gates.filter((gate) => !gate.ok).map((gate) => gate.name)).toEqual(['target']);
      } finally {
        await stray.kill();
      }
    });
  });

  it('is caught when nothing listens on the port the check names', async () => {
    const { dir, base } = addProject({ 'server.mjs': SERVER });
    await withLease(async (leased) => {
      const evidence = await runCheck({ command: fetchCheck('$PORT') }, { cwd: dir, logDir: tempDir(), env: { PORT: String(leased[0]) } });
      const gated = await gateIntegration({ evidence: [evidence], worktree: dir, leasedPorts: leased, audit: { repo: dir, base } });
      expect(gated.gates.find((gate) => gate.name === 'target')!.reason).toContain(
        `talks to port ${leased[0]}, but nothing listened there while it ran`,
      );
    });
  });

  it('without the trap (the server runs from the worktree on a leased port), every gate passes', async () => {
    const { dir, base } = addProject({ 'server.mjs': SERVER });
    await withLease(async (leased) => {
      const server = await startServer(dir, leased[0]!);
      try {
        // The check names the port through $PORT, as an agent's command would.
        const evidence = await runCheck(
          { command: fetchCheck('$PORT') },
          { cwd: dir, logDir: tempDir(), env: { PORT: String(leased[0]) } },
        );
        expect(evidence.target_ports).toEqual([leased[0]]);
        const gated = await gateIntegration({ evidence: [evidence], worktree: dir, leasedPorts: leased, audit: { repo: dir, base } });
        expect(gated.gates.filter((gate) => !gate.ok)).toEqual([]);
        expect(gated.gates.find((gate) => gate.name === 'target')!.reason).toBe(
          `the servers on port(s) ${leased[0]} run from this worktree on ports leased to this job`,
        );
        expect(gated.checks[0]!.status).toBe('passed');
      } finally {
        await server.kill();
      }
    });
  });

  it('a check may declare its ports in its spec instead of its command', async () => {
    const { dir, base } = addProject({ 'server.mjs': SERVER });
    await withLease(async (leased) => {
      const server = await startServer(dir, leased[1]!);
      try {
        const evidence = await runCheck({ command: 'node --test test/', target_ports: [leased[1]!] }, { cwd: dir, logDir: tempDir() });
        expect(evidence.targets.map((target) => [target.port, target.pid])).toEqual([[leased[1], server.pgid]]);
        const gated = await gateIntegration({ evidence: [evidence], worktree: dir, leasedPorts: leased, audit: { repo: dir, base } });
        expect(gated.gates.find((gate) => gate.name === 'target')!.ok).toBe(true);
      } finally {
        await server.kill();
      }
    });
  });
});
