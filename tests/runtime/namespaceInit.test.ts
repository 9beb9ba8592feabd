import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { CGROUP_ROOT_ENV, cgroupHost } from '../../shared/core/runtime/agentCgroup.js';
import { NamespaceInit } from '../../shared/core/runtime/namespaceInit.js';
import { killAllProcessGroups, spawnGroup } from '../../shared/core/runtime/processGroup.js';
import { sandboxPolicy } from '../../shared/core/sandbox/agentPolicy.js';
import { bwrapWrap, findOnPath } from '../../shared/core/sandbox/bwrap.js';
import { processesMatching, waitForCommands } from '../support/processTable.js';
import { tempDir } from '../support/tempDir.js';

afterEach(async () => {
  delete process.env[CGROUP_ROOT_ENV];
  await killAllProcessGroups(200);
});

/** The process's state letter when it runs (not a zombie); undefined when it is gone or a zombie. */
function runningState(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // gone
  }
  const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  return state === 'Z' || state === 'X' ? undefined : state;
}

/** What a launcher wrote on its info fd, as NamespaceInit reads it. */
function readText(text: string): Promise<NamespaceInit | undefined> {
  const pipe = new PassThrough();
  const init = NamespaceInit.read(pipe);
  pipe.end(text);
  return init;
}

describe("a pid namespace's init, as bwrap names it", () => {
  it('is nothing to wait for when the launcher wrote nothing (it ended before making the namespace)', async () => {
    expect(await readText('')).toBeUndefined();
  });

  it('is an error, not silence, when the launcher wrote something else', async () => {
    await expect(readText('{"pid": 12}')).rejects.toThrow(/--info-fd wrote what is not its JSON/);
    await expect(readText('not json')).rejects.toThrow(/--info-fd/);
  });

  it('has ended once its process is a zombie or gone, and not while it runs; waiting for one that runs on fails naming it', async () => {
    // `true &` exits at once, and its parent (bash, then sleep by exec) never reaps it: a zombie.
    const child = spawn('bash', ['-c', 'true & echo $!; exec sleep 600'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const [line] = (await once(child.stdout, 'data')) as [Buffer];
    const zombie = Number(line.toString().trim());
    // `$!` is printed as soon as `true` is forked: it is a zombie only once it has run and exited.
    while (runningState(zombie) !== undefined) await new Promise((resolve) => setTimeout(resolve, 5));
    const running = await readText(JSON.stringify({ 'child-pid': child.pid }));
    const exited = await readText(JSON.stringify({ 'child-pid': zombie }));
    expect(running?.ended()).toBe(false);
    expect(exited?.ended()).toBe(true);
    await expect(running!.waitForEnd(0)).rejects.toThrow(`its init is pid ${child.pid}`);
    child.kill('SIGKILL');
    await once(child, 'exit');
    // Gone: reaped, and the pid (even if given to another process since) is not its any more.
    expect(running?.ended()).toBe(true);
  });

  it('takes every process of the namespace with it: once it has ended, a setsid writer that ignores SIGTERM and SIGHUP is gone', async () => {
    const bwrap = findOnPath('bwrap');
    expect(bwrap).toBeDefined();
    // Without a cgroup, only the namespace holds what left the process group.
    process.env[CGROUP_ROOT_ENV] = tempDir();
    expect(cgroupHost().problem).toBeDefined();
    const dir = tempDir('orca-namespace-init-');
    const marker = `orca-namespace-writer-${process.pid}`;
    const writer = `setsid bash -c 'exec -a ${marker} bash -c "trap \\"\\" TERM HUP; while :; do echo x >> late.txt; done"' >/dev/null 2>&1 &`;
    const wrap = bwrapWrap(bwrap!, sandboxPolicy({ worktree: dir, tempDir: tempDir(), host: { orcaHome: tempDir() } }));
    // The command ends once told to (the file `go`), the writer still writing.
    const { file, args, infoFd } = wrap(`${writer} until [ -e go ]; do sleep 0.01; done`, dir, { infoFd: 3 });
    expect(infoFd).toBe(3);
    expect(args.slice(args.indexOf('--info-fd'), args.indexOf('--info-fd') + 2)).toEqual(['--info-fd', '3']);
    const group = await spawnGroup(file, args, { cwd: dir, env: process.env, namespaceInfoFd: 3 });
    await waitForCommands([marker]);
    // The writer itself (its argv[0] is the marker), not bwrap or the shells whose scripts name it.
    const writers = () => processesMatching(marker).filter((row) => row.args.startsWith(marker));
    const [writerPid] = writers().map((row) => row.pid);
    writeFileSync(path.join(dir, 'go'), '');
    await group.exited;
    await group.kill(200);
    // Looked at in /proc at once, with no wait: the kernel has ended it, not merely been asked to.
    expect(runningState(writerPid!)).toBeUndefined();
    // Nor anything else of the namespace: its init (bwrap's pid 1, whose command line names the marker too).
    expect(processesMatching(marker)).toEqual([]);
    expect(writers()).toEqual([]);
  });

  it('is asked for only when the caller holds the fd open: without infoFd, bwrap is not told to write one', () => {
    const wrap = bwrapWrap('bwrap', sandboxPolicy({ worktree: tempDir(), tempDir: tempDir(), host: { orcaHome: tempDir() } }));
    const plain = wrap('true', '/');
    expect(plain.args).not.toContain('--info-fd');
    expect(plain.infoFd).toBeUndefined();
  });
});
