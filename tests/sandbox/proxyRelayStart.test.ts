import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compiledEntry } from '../../shared/core/runtime/compiledEntry.js';
import { sandboxPolicy } from '../../shared/core/sandbox/agentPolicy.js';
import { bwrapWrap, findOnPath, proxyRelayLine } from '../../shared/core/sandbox/bwrap.js';
import { type OwnEgressProxy, openEgressProxy } from '../../shared/core/sandbox/egressProxy.js';
import { type ProxyRelay, proxyRelay } from '../../shared/core/sandbox/proxyRelayStart.js';
import { tempDir } from '../support/tempDir.js';

/**
 * The relay that serves the sandbox's proxy on its loopback (127.0.0.1:3128): socat where the
 * host has it, orca's Node relay where it does not. Both are driven here through bwrap with a
 * proxy of their own that lets one loopback server through, and must behave the same to the
 * command: its first request gets through, its stdin, exit status and extra pipes are its own.
 */

const bwrap = findOnPath('bwrap');
/** What bwrap puts its own in place of: the private /tmp, a fresh /dev. */
const REPLACED = ['/tmp', '/dev'];
const socat = findOnPath('socat');
let server: Server;
let port: number;
let proxy: OwnEgressProxy;

beforeAll(async () => {
  server = createServer((request, response) => response.end(`served ${request.url}\n`));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
  proxy = await openEgressProxy([`127.0.0.1:${port}`], 'linux');
});

afterAll(async () => {
  await proxy.close();
  await new Promise((resolve) => server.close(resolve));
});

/** `bash -c command` in bwrap with the proxy's network, the relay given; its output, exit status and what it wrote on fd 3. */
async function sandboxed(relay: ProxyRelay, command: string, options: { input?: string; worktree?: string } = {}) {
  if (!bwrap) throw new Error('bwrap is not on PATH: scripts/system-tools.sh installs it');
  const worktree = options.worktree ?? tempDir('orca-relay-worktree-');
  const policy = sandboxPolicy({ worktree, tempDir: tempDir('orca-relay-tmp-'), host: { orcaHome: tempDir('orca-relay-home-') } });
  policy.network = { kind: 'proxy', endpoint: proxy.endpoint, loopbackThroughProxy: true };
  const wrapped = bwrapWrap(bwrap, policy, { relay })(command, worktree);
  const child = spawn(wrapped.file, wrapped.args, { stdio: ['pipe', 'pipe', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '', fd3: '' };
  child.stdout!.on('data', (chunk: Buffer) => (out.stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out.stderr += chunk.toString()));
  (child.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => (out.fd3 += chunk.toString()));
  child.stdin!.end(options.input ?? '');
  const [code] = await once(child, 'close');
  return { ...out, code: code as number | null };
}

const relays: Array<[string, () => ProxyRelay]> = [
  [
    'socat',
    () => {
      if (!socat) throw new Error('socat is not on PATH: scripts/system-tools.sh installs it');
      return proxyRelay(socat, REPLACED);
    },
  ],
  ['the Node relay', () => proxyRelay(undefined, REPLACED)],
];

describe.each(relays)('the proxy relay: %s', (_name, relay) => {
  it('serves the proxy before the command starts: its first request gets through', async () => {
    // bash's own /dev/tcp connects at once (no program to start first): a relay not yet listening refuses it.
    const request = `GET http://127.0.0.1:${port}/first HTTP/1.0\\r\\nHost: 127.0.0.1:${port}\\r\\n\\r\\n`;
    const run = await sandboxed(relay(), `exec 5<>/dev/tcp/127.0.0.1/3128 && printf '${request}' >&5 && cat <&5`);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/^HTTP\/1\.1 200 /);
    expect(run.stdout).toContain('served /first\n');
    expect(run.code).toBe(0);
  });

  it('serves a client that needs a program started first (curl)', async () => {
    const run = await sandboxed(relay(), `curl -sS --max-time 10 http://127.0.0.1:${port}/curl`);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('served /curl\n');
    expect(run.code).toBe(0);
  });

  it("gives the command its stdin, its exit status, and the caller's further pipe (fd 3)", async () => {
    const run = await sandboxed(relay(), 'read -r line; echo "got $line"; echo status >&3; exit 7', { input: 'hello\n' });
    expect(run.stdout).toBe('got hello\n');
    expect(run.fd3).toBe('status\n');
    expect(run.code).toBe(7);
  });

  it('lets nothing through that the proxy refuses', async () => {
    const run = await sandboxed(relay(), "curl -s -o /dev/null -w '%{http_code}\\n' http://127.0.0.1:1/");
    expect(run.stdout).toBe('403\n');
  });
});

describe('choosing the relay', () => {
  it('takes socat from PATH, and the Node relay without one or with one under a folder the sandbox replaces', () => {
    expect(proxyRelay(socat, REPLACED)).toEqual({ kind: 'socat', program: socat });
    expect(proxyRelay(undefined, REPLACED)).toEqual({ kind: 'node' });
    const hidden = path.join(tempDir('orca-relay-bin-'), 'socat');
    writeFileSync(hidden, '#!/bin/sh\n');
    chmodSync(hidden, 0o755);
    expect(proxyRelay(hidden, REPLACED)).toEqual({ kind: 'node' });
  });

  it('is said in one line: socat by its path, or the Node relay with why and what to install', () => {
    if (!socat) throw new Error('socat is not on PATH: scripts/system-tools.sh installs it');
    expect(proxyRelayLine({ PATH: path.dirname(socat) })).toBe(
      `network relay: socat (${realpathSync(socat)}) serves each sandbox's proxy inside its network namespace`,
    );
    const without = proxyRelayLine({ PATH: tempDir('orca-relay-empty-bin-') });
    expect(without).toMatch(
      /^network relay: orca's Node relay \(no socat on PATH\): .* starts about 150 ms later .*; install socat \(apt-get install socat/,
    );
    const bin = tempDir('orca-relay-bin-');
    writeFileSync(path.join(bin, 'socat'), '#!/bin/sh\n');
    chmodSync(path.join(bin, 'socat'), 0o755);
    expect(proxyRelayLine({ PATH: bin })).toContain(
      `(the socat on PATH, ${path.join(bin, 'socat')}, lies in a folder the sandbox replaces)`,
    );
  });

  it('in bwrap, passes over a socat under a folder the policy hides, for the Node relay', () => {
    if (!bwrap) throw new Error('bwrap is not on PATH');
    const bin = mkdtempSync('/var/tmp/orca-relay-bin-');
    try {
      writeFileSync(path.join(bin, 'socat'), '#!/bin/sh\n');
      chmodSync(path.join(bin, 'socat'), 0o755);
      const worktree = tempDir('orca-relay-worktree-');
      const policy = sandboxPolicy({ worktree, tempDir: tempDir('orca-relay-tmp-'), host: { orcaHome: tempDir('orca-relay-home-') } });
      policy.network = { kind: 'proxy', endpoint: proxy.endpoint, loopbackThroughProxy: true };
      const words = (hidden: string[]) =>
        bwrapWrap(bwrap, { ...policy, hidden: [...policy.hidden, ...hidden] }, { env: { PATH: bin } })('true', worktree).args;
      expect(words([])).toContain(realpathSync(path.join(bin, 'socat')));
      expect(words([bin])).not.toContain(realpathSync(path.join(bin, 'socat')));
      expect(words([bin])).toContain(compiledEntry('shared/core/sandbox/proxyRelay.ts'));
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });

  it('fails the command, saying why, when socat ends before it listens', async () => {
    // A socat that cannot serve (in the worktree, which the sandbox sees): the command must not run as though its network were there.
    const worktree = tempDir('orca-relay-worktree-');
    const broken = path.join(worktree, 'socat');
    writeFileSync(broken, '#!/bin/sh\necho "cannot bind" >&2\nexit 1\n');
    chmodSync(broken, 0o755);
    const run = await sandboxed({ kind: 'socat', program: broken }, 'echo COMMAND-RAN', { worktree });
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`orca proxy relay: socat (${broken}) ended before it listened on 127.0.0.1:3128`);
    expect(run.code).toBe(126);
  });
});
