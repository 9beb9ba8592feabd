import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { BashResultData } from '../../shared/core/tool/bashResultData.js';
import {
  findOnPath,
  NoSandboxError,
  networkRules,
  type Sandbox,
  sandboxAvailability,
  shellSandbox,
} from '../../shared/policy/permissions/sandbox.js';
import { sandboxStatus } from '../../shared/policy/permissions/sandboxLine.js';
import type { LoadedSettings } from '../../shared/policy/settings/loadSettings.js';
import { makeBashTool } from '../../shared/tools/bash.js';
import { processesMatching, waitForNoProcess } from '../support/processTable.js';
import { tempDir } from '../support/tempDir.js';
import { makeToolContext } from '../support/toolContext.js';

// bwrap is installed where orca's tests run; without it these tests must fail, not pass vacuously.
const bwrap = findOnPath('bwrap');

function sandboxed(options: { domains?: string[]; readable?: string[] } = {}) {
  const worktree = tempDir('orca-worktree-');
  const privateTmp = path.join(tempDir('orca-session-'), 'tmp');
  const notices: string[] = [];
  const sandbox: Sandbox = shellSandbox({
    enabled: true,
    worktree,
    tempDir: privateTmp,
    domains: options.domains ?? [],
    extraReadable: options.readable,
    notify: (message) => notices.push(message),
  });
  // The probes below try to write /etc, /usr and the host's /tmp: they must never run unsandboxed.
  if (!sandbox.active)
    throw new Error(`no working bwrap here (${sandboxAvailability().problem}): the sandbox probes refuse to run without it`);
  const ctx = makeToolContext({ root: worktree });
  ctx.shell.wrap = sandbox.wrap;
  const bash = makeBashTool();
  const run = async (command: string) => {
    const output = await bash.call({ command }, ctx);
    return { content: output.content, exitCode: (output.data as BashResultData).exitCode };
  };
  return { worktree: ctx.workspace.root, privateTmp, sandbox, notices, run };
}

const servers: Server[] = [];
const outsideTmp: string[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  for (const dir of outsideTmp.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * A folder the sandbox can see: /tmp is replaced by the private one inside, so a stand-in for the
 * user's checkout there would only prove the shadowing. /var/tmp is left visible (read-only).
 */
function visibleFolder(): string {
  const dir = mkdtempSync('/var/tmp/orca-checkout-');
  outsideTmp.push(dir);
  return dir;
}

async function listeningServer(): Promise<number> {
  const server = createServer((socket) => socket.end('hello from the host\n'));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('server has no port');
  return address.port;
}

describe('Bash under bwrap, through the Bash tool', () => {
  it('finds bwrap and wraps commands', () => {
    expect(bwrap).toBeDefined();
    const { sandbox, notices } = sandboxed();
    expect(sandbox.active).toBe(true);
    expect(sandbox.policy).toEqual({ writableOutside: ['/tmp'], bashSandboxed: true });
    expect(notices).toEqual([]);
  });

  it('writes inside the worktree', async () => {
    const { run, worktree } = sandboxed();
    const result = await run('mkdir -p src && echo inside > src/out.txt && cat src/out.txt');
    expect(result.exitCode).toBe(0);
    expect(readFileSync(path.join(worktree, 'src', 'out.txt'), 'utf8')).toBe('inside\n');
  });

  it('puts TMPDIR at the private folder’s own path, so a scratch file there is the same file for the host’s tools', async () => {
    const { run, privateTmp } = sandboxed();
    const result = await run('printf "%s" "$TMPDIR"; cat > "$TMPDIR/probe.txt" <<\'EOF\'\nscratch\nEOF');
    expect(result.exitCode).toBe(0);
    expect(result.content).toBe(`${realpathSync(privateTmp)}\nExit code: 0`);
    expect(readFileSync(path.join(privateTmp, 'probe.txt'), 'utf8')).toBe('scratch\n');
    // /tmp is the same private folder.
    expect(await run('cat /tmp/probe.txt')).toMatchObject({ exitCode: 0, content: 'scratch\nExit code: 0' });
  });

  it('cannot write /etc through /tmp/..', async () => {
    const { run } = sandboxed();
    const result = await run('echo x > /tmp/../etc/orca-test');
    expect(result.exitCode).not.toBe(0);
    expect(result.content).toMatch(/Read-only file system/);
    expect(existsSync('/etc/orca-test')).toBe(false);
  });

  it('can read but not write a folder outside the worktree (a stand-in for the user’s checkout)', async () => {
    const { run } = sandboxed();
    const checkout = path.join(visibleFolder(), 'repo');
    mkdirSync(checkout);
    writeFileSync(path.join(checkout, 'README.md'), 'original\n');
    expect(await run(`cat ${checkout}/README.md`)).toMatchObject({ exitCode: 0, content: expect.stringContaining('original') });
    for (const command of [`echo changed > ${checkout}/README.md`, `echo new > ${checkout}/new.txt`, `rm ${checkout}/README.md`]) {
      const result = await run(command);
      expect(result.exitCode).not.toBe(0);
      expect(result.content).toMatch(/Read-only file system/);
    }
    expect(readFileSync(path.join(checkout, 'README.md'), 'utf8')).toBe('original\n');
    expect(existsSync(path.join(checkout, 'new.txt'))).toBe(false);
  });

  it('hides the host’s /tmp, so a checkout there is out of reach too', async () => {
    const { run } = sandboxed();
    const checkout = tempDir('orca-checkout-');
    writeFileSync(path.join(checkout, 'README.md'), 'original\n');
    const result = await run(`echo changed > ${checkout}/README.md`);
    expect(result.exitCode).not.toBe(0);
    expect(readFileSync(path.join(checkout, 'README.md'), 'utf8')).toBe('original\n');
  });

  it('shows a readable dependency folder under /tmp with what its packages link to there, read-only', async () => {
    // A repository under /tmp whose node_modules borrows packages from another install under /tmp.
    const install = tempDir('orca-install-');
    mkdirSync(path.join(install, 'typescript', 'bin'), { recursive: true });
    writeFileSync(path.join(install, 'typescript', 'bin', 'tsc'), '#!/bin/sh\necho tsc ran\n', { mode: 0o755 });
    mkdirSync(path.join(install, 'types-node'));
    writeFileSync(path.join(install, 'types-node', 'index.d.ts'), 'export {};\n');
    const modules = path.join(tempDir('orca-repo-'), 'node_modules');
    mkdirSync(path.join(modules, '@types'), { recursive: true });
    mkdirSync(path.join(modules, '.bin'));
    symlinkSync(path.join(install, 'typescript'), path.join(modules, 'typescript'), 'dir');
    symlinkSync(path.join(install, 'types-node'), path.join(modules, '@types', 'node'), 'dir');
    symlinkSync('../typescript/bin/tsc', path.join(modules, '.bin', 'tsc'));
    const { run } = sandboxed({ readable: [modules] });
    expect(await run(`${modules}/.bin/tsc && cat ${modules}/@types/node/index.d.ts`)).toMatchObject({
      exitCode: 0,
      content: expect.stringContaining('tsc ran\nexport {};'),
    });
    const write = await run(`echo changed > ${modules}/typescript/bin/tsc`);
    expect(write.exitCode).not.toBe(0);
    expect(readFileSync(path.join(install, 'typescript', 'bin', 'tsc'), 'utf8')).toBe('#!/bin/sh\necho tsc ran\n');
    // Only what the folder links to is shown: the rest of the host's /tmp stays hidden.
    const other = tempDir('orca-other-');
    writeFileSync(path.join(other, 'secret.txt'), 'host\n');
    expect((await run(`cat ${other}/secret.txt`)).exitCode).not.toBe(0);
  });

  it('cannot write the user’s home or the rest of the filesystem', async () => {
    const { run } = sandboxed();
    const result = await run('touch /usr/orca-test || touch /var/orca-test || touch /root/orca-test');
    expect(result.exitCode).not.toBe(0);
    expect(['/usr/orca-test', '/var/orca-test', '/root/orca-test'].some((file) => existsSync(file))).toBe(false);
  });

  it('gives the command a private /tmp', async () => {
    const { run, privateTmp } = sandboxed();
    const marker = `orca-private-${process.pid}-${Date.now()}`;
    const result = await run(`echo scratch > /tmp/${marker} && echo "$TMPDIR"`);
    expect(result.exitCode).toBe(0);
    expect(result.content).toContain('/tmp');
    expect(readFileSync(path.join(privateTmp, marker), 'utf8')).toBe('scratch\n');
    expect(existsSync(path.join('/tmp', marker))).toBe(false);
  });

  it('never shares the host network: a host loopback port is out of reach, with or without an allowed domain', async () => {
    const port = await listeningServer();
    const probe = `exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3`;
    const closed = await sandboxed().run(probe);
    expect(closed.exitCode).not.toBe(0);
    const allowed = await sandboxed({ domains: ['example.com'] }).run(probe);
    expect(allowed.exitCode).not.toBe(0);
    expect(allowed.content).not.toContain('hello from the host');
  });

  it('leaves nothing running after the call, background jobs included', async () => {
    const { run } = sandboxed();
    const marker = `orca-sandbox-bg-${process.pid}-${Date.now()}`;
    const result = await run(`bash -c 'exec -a ${marker} sleep 300' & echo started`);
    expect(result.content).toContain('started');
    expect(await waitForNoProcess(marker)).toEqual([]);
    expect(processesMatching(marker)).toEqual([]);
  });
});

describe('without bwrap', () => {
  it('says so once per process and runs unsandboxed', () => {
    const notices: string[] = [];
    const options = {
      enabled: true,
      worktree: tempDir(),
      tempDir: path.join(tempDir(), 'tmp'),
      notify: (m: string) => notices.push(m),
      env: { PATH: '' },
    };
    const first = shellSandbox(options);
    const second = shellSandbox(options);
    expect(first).toEqual({ active: false, policy: { writableOutside: [], bashSandboxed: false } });
    expect(second.wrap).toBeUndefined();
    expect(notices).toEqual(['bwrap not found: Bash runs unsandboxed, relying on the permission checks']);
  });

  it('says so when bwrap is there but cannot build a sandbox', () => {
    const bin = tempDir('orca-fake-bin-');
    writeFileSync(path.join(bin, 'bwrap'), '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n', { mode: 0o755 });
    const notices: string[] = [];
    const sandbox = shellSandbox({
      enabled: true,
      worktree: tempDir(),
      tempDir: tempDir(),
      notify: (m) => notices.push(m),
      env: { PATH: bin },
    });
    expect(sandbox.active).toBe(false);
    expect(notices).toEqual([
      'bwrap cannot create a sandbox here (bwrap: setting up uid map: Permission denied): Bash runs unsandboxed, relying on the permission checks',
    ]);
  });

  it('under --sandbox required, refuses with one line saying how to get bwrap', () => {
    const notices: string[] = [];
    const options = { worktree: tempDir(), tempDir: tempDir(), notify: (m: string) => notices.push(m), env: { PATH: '' } };
    expect(() => shellSandbox({ ...options, enabled: true, mode: 'required' })).toThrow(
      new NoSandboxError('bwrap not found', 'install bubblewrap (apt-get install bubblewrap, dnf install bubblewrap)'),
    );
    // Whatever the role says: required is required.
    expect(() => shellSandbox({ ...options, enabled: false, mode: 'required' })).toThrow(
      /^no sandbox here \(bwrap not found\): install bubblewrap \(apt-get install bubblewrap, dnf install bubblewrap\); or say --sandbox off/,
    );
    expect(notices).toEqual([]);
  });

  it('under --sandbox off, runs unsandboxed even where bwrap works, and says so', () => {
    const notices: string[] = [];
    const off = shellSandbox({
      enabled: true,
      mode: 'off',
      worktree: tempDir(),
      tempDir: tempDir(),
      notify: (m) => notices.push(m),
    });
    expect(off).toEqual({ active: false, policy: { writableOutside: [], bashSandboxed: false } });
    expect(notices.length).toBeLessThanOrEqual(1);
    const status = sandboxStatus('off', { source: '--sandbox off' });
    expect(status.kind).toBe('none');
    expect(status.refusal).toBeUndefined();
    expect(status.line).toBe(
      "sandbox: off (--sandbox off): agent code runs as you: Bash, setup commands, hooks and integration checks run unsandboxed on this host, with your keys, your Claude Code configuration and orca's state (ORCA_HOME)",
    );
  });

  it('stays off when disabled, without a notice', () => {
    const notices: string[] = [];
    const off = shellSandbox({ enabled: false, worktree: tempDir(), tempDir: tempDir(), notify: (m) => notices.push(m) });
    expect(off.active).toBe(false);
    expect(notices).toEqual([]);
  });
});

describe('network rules from settings', () => {
  const settings = (...raw: Record<string, unknown>[]): LoadedSettings => ({
    projectRoot: '/p',
    sources: raw.map((settings, index) => ({ scope: 'project', file: `/p/${index}.json`, label: `file${index}`, raw: settings, settings })),
  });

  it('is none by default, and the domains of allowedDomains and WebFetch allow rules and the sockets of allowUnixSockets otherwise, naming which', () => {
    expect(networkRules(settings({ permissions: { allow: ['Bash(npm test:*)'] } }))).toEqual({ domains: [], sockets: [], by: [] });
    expect(
      networkRules(
        settings({}, { sandbox: { network: { allowedDomains: ['registry.npmjs.org'], allowUnixSockets: ['/run/docker.sock'] } } }),
      ),
    ).toEqual({
      domains: ['registry.npmjs.org'],
      sockets: ['/run/docker.sock'],
      by: ['sandbox.network.allowedDomains in file1', 'sandbox.network.allowUnixSockets in file1'],
    });
    expect(networkRules(settings({ permissions: { allow: ['WebFetch(domain:github.com)', 'WebFetch'] } }))).toEqual({
      domains: ['github.com', '*'],
      sockets: [],
      by: ['allow:WebFetch(domain:github.com) in file0', 'allow:WebFetch in file0'],
    });
  });
});
