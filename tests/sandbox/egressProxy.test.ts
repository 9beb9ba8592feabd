import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { connect, createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEgressProxy, sweepStaleEgressDirs } from '../../shared/core/sandbox/egressProxy.js';
import { PROXY_HOSTS_VARIABLE } from '../../shared/core/sandbox/egressRules.js';
import type { BashResultData } from '../../shared/core/tool/bashResultData.js';
import { redisUrl } from '../../shared/infra/redis/redisConnection.js';
import { runCheck } from '../../shared/infra/verify/checks/checkRun.js';
import { checkLauncher } from '../../shared/infra/verify/checks/checkSandbox.js';
import { sandboxAvailability, shellSandbox } from '../../shared/policy/permissions/sandbox.js';
import { makeBashTool } from '../../shared/tools/bash.js';
import { makeRepo } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';
import { makeToolContext } from '../support/toolContext.js';

/**
 * The sandbox's network (issue 31): a network of its own, the allowed domains through orca's
 * filtering proxy. A local HTTP server stands in for an allowed domain, `api.orca.test`, which
 * ORCA_PROXY_HOSTS maps to 127.0.0.1 (the proxy's own configuration, as a user would point a name
 * at a staging host). Orca's Redis, another loopback port and a host unix socket stay out of reach.
 */

const NAME = 'api.orca.test';
const REDIS_PORT = Number(new URL(redisUrl()).port || 6379);

const servers: Array<Server | HttpServer> = [];
let allowedPort: number;
let otherPort: number;
const hostSocketDir = `/run/orca-egress-test-${process.pid}`;
const hostSocket = path.join(hostSocketDir, 'host.sock');
const savedHosts = process.env[PROXY_HOSTS_VARIABLE];

async function listen(server: Server | HttpServer, where: number | string): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) =>
    typeof where === 'string' ? server.listen(where, resolve) : server.listen(where, '127.0.0.1', resolve),
  );
  const address = server.address();
  return typeof address === 'object' && address !== null ? address.port : 0;
}

beforeAll(async () => {
  process.env[PROXY_HOSTS_VARIABLE] = `${NAME}=127.0.0.1`;
  allowedPort = await listen(
    createHttpServer((request, response) => response.end(`stand-in for ${NAME} got ${request.method} ${request.url}\n`)),
    0,
  );
  otherPort = await listen(
    createHttpServer((_request, response) => response.end('another host service\n')),
    0,
  );
  mkdirSync(hostSocketDir, { recursive: true });
  await listen(
    createServer((socket) => socket.end('host socket\n')),
    hostSocket,
  );
});

afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  rmSync(hostSocketDir, { recursive: true, force: true });
  if (savedHosts === undefined) delete process.env[PROXY_HOSTS_VARIABLE];
  else process.env[PROXY_HOSTS_VARIABLE] = savedHosts;
});

/** Sandboxed Bash, through the Bash tool, allowed `api.orca.test:<the stand-in's port>`. */
function sandboxedBash(options: { sockets?: string[] } = {}) {
  if (sandboxAvailability().kind !== 'bwrap') throw new Error(`no working bwrap here (${sandboxAvailability().problem})`);
  const worktree = tempDir('orca-worktree-');
  const sandbox = shellSandbox({
    enabled: true,
    worktree,
    tempDir: path.join(tempDir('orca-session-'), 'tmp'),
    domains: [`${NAME}:${allowedPort}`],
    sockets: options.sockets,
    notify: () => {},
  });
  const ctx = makeToolContext({ root: worktree });
  ctx.shell.wrap = sandbox.wrap;
  const bash = makeBashTool();
  return async (command: string) => {
    const output = await bash.call({ command }, ctx);
    return { content: output.content, exitCode: (output.data as BashResultData).exitCode };
  };
}

/** The probes, one line of output each, the same for Bash and for a check. */
const PROBES = {
  byName: () => `curl -sS http://${NAME}:${allowedPort}/hello`,
  tunnel: () => `curl -sS --proxytunnel http://${NAME}:${allowedPort}/tunnel`,
  redisDirect: () => `(exec 3<>/dev/tcp/127.0.0.1/${REDIS_PORT} && echo REDIS-REACHED) 2>/dev/null || echo redis-refused`,
  redisThroughProxy: () => `curl -s -o /dev/null -w '%{http_code}\\n' --noproxy '' http://127.0.0.1:${REDIS_PORT}/`,
  redisByAllowedName: () => `curl -s -o /dev/null -w '%{http_code}\\n' http://${NAME}:${REDIS_PORT}/`,
  otherPort: () => `curl -s -o /dev/null -w '%{http_code}\\n' http://${NAME}:${otherPort}/`,
  otherPortDirect: () => `curl -sS --max-time 5 http://127.0.0.1:${otherPort}/ 2>&1 | head -1`,
  notAllowed: () => `curl -s -o /dev/null -w '%{http_code}\\n' http://example.com/`,
  hostSocket: () =>
    `node -e "require('net').connect(process.argv[1]).on('data', (d) => process.stdout.write(d)).on('error', (e) => console.log('socket ' + e.code))" ${hostSocket}`,
  runFolder: () => "echo \"run: $(ls -A /run | tr '\\n' ' ')\"",
};

describe('sandboxed Bash with an allowed domain', () => {
  const run = (probe: keyof typeof PROBES) => sandboxedBash()(PROBES[probe]());

  it('reaches the allowed domain by its name, through the proxy, plain and tunnelled', async () => {
    expect((await run('byName')).content).toContain(`stand-in for ${NAME} got GET /hello`);
    expect((await run('tunnel')).content).toContain(`stand-in for ${NAME} got GET /tunnel`);
  });

  it("cannot reach orca's Redis: not directly, not through the proxy, not by the allowed name on its port", async () => {
    expect((await run('redisDirect')).content).toContain('redis-refused');
    expect((await run('redisThroughProxy')).content).toContain('403');
    expect((await run('redisByAllowedName')).content).toContain('403');
  });

  it('cannot reach another loopback port, a domain no rule names, or a host unix socket', async () => {
    expect((await run('otherPort')).content).toContain('403');
    expect((await run('otherPortDirect')).content).not.toContain('another host service');
    expect((await run('notAllowed')).content).toContain('403');
    expect((await run('hostSocket')).content).toContain('socket ENOENT');
    // The host's /run (Docker's, D-Bus's and databases' sockets) is an empty folder but for the proxy's socket.
    expect((await run('runFolder')).content.split('\n')[0]).toBe('run: orca ');
  });
});

describe('a host unix socket a rule names (sandbox.network.allowUnixSockets)', () => {
  it('is reached from inside, although the folder it lives in is hidden', async () => {
    const run = sandboxedBash({ sockets: [hostSocket] });
    expect((await run(PROBES.hostSocket())).content).toContain('host socket');
    expect((await run(PROBES.runFolder())).content.split('\n')[0]).toBe(`run: orca ${path.basename(hostSocketDir)} `);
  });
});

describe('integration checks with their default network (--check-network proxy)', () => {
  const check = async (probe: keyof typeof PROBES) => {
    const repo = makeRepo();
    const launcher = checkLauncher({
      mode: 'auto',
      worktree: repo,
      tempDir: tempDir(),
      network: 'proxy',
      domains: [`${NAME}:${allowedPort}`],
      readable: [],
    });
    expect(launcher.sandbox).toBe('bwrap');
    const evidence = await runCheck({ command: PROBES[probe]() }, { cwd: repo, logDir: tempDir(), launcher });
    return readFileSync(evidence.log, 'utf8');
  };

  it('reach the allowed domain through the proxy, and neither Redis, another loopback port nor a host socket', async () => {
    expect(await check('byName')).toContain(`stand-in for ${NAME} got GET`);
    expect(await check('redisDirect')).toContain('redis-refused');
    expect(await check('redisThroughProxy')).toContain('403');
    expect(await check('redisByAllowedName')).toContain('403');
    expect(await check('otherPort')).toContain('403');
    expect(await check('hostSocket')).toContain('socket ENOENT');
  });
});

describe('the proxy socket folders', () => {
  it('removes those of processes that are gone, and keeps a live one’s', () => {
    const tmp = tempDir('orca-egress-sweep-');
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    mkdirSync(path.join(tmp, `orca-egress-${gone}-abc123`));
    mkdirSync(path.join(tmp, `orca-egress-${process.pid}-def456`));
    mkdirSync(path.join(tmp, 'orca-egress-unrelated'));
    sweepStaleEgressDirs(tmp);
    expect(readdirSync(tmp).sort()).toEqual([`orca-egress-${process.pid}-def456`, 'orca-egress-unrelated']);
  });
});

describe('a session’s own proxy', () => {
  it('is closed with its socket and folder, and takes no connection after', async () => {
    const proxy = await openEgressProxy(['127.0.0.1:1'], 'linux');
    const endpoint = proxy.endpoint();
    if (!('socket' in endpoint)) throw new Error('a Linux proxy is reached through a socket');
    expect(existsSync(endpoint.socket)).toBe(true);
    await proxy.close();
    expect(existsSync(path.dirname(endpoint.socket))).toBe(false);
    const refused = await new Promise<string>((resolve) => {
      const socket = connect(endpoint.socket);
      socket.once('connect', () => resolve('connected'));
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    });
    expect(refused).toBe('ENOENT');
  });
});
