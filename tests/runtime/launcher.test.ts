import { execFileSync, spawnSync } from 'node:child_process';
import { getEventListeners } from 'node:events';
import { mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { launch } from '../../shared/core/runtime/launcher.js';
import { tempDir } from '../support/tempDir.js';

const ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const text = (buffer: Buffer) => buffer.toString('utf8');

describe('launch: a program started from the launcher shell, as spawn would start it', () => {
  it('passes every argument as it is, whatever a shell would make of it', async () => {
    const args = ["it's", 'two words', '$(touch pwned)', '`id`', 'a\nb', '*', '"', '\\', '', '-n'];
    const dir = tempDir('orca-launch-');
    const ran = await launch('printf', ['%s|', ...args], { cwd: dir, env: ENV });
    expect(ran.code).toBe(0);
    expect(text(ran.stdout)).toBe(args.map((arg) => `${arg}|`).join(''));
    expect(execFileSync('ls', ['-A', dir], { encoding: 'utf8' })).toBe('');
  });

  it('gives the program exactly the environment asked for, and runs it in its folder', async () => {
    const dir = tempDir('orca-launch-');
    const env = { PATH: ENV.PATH, ORCA_A: "quote ' and $HOME", ORCA_EMPTY: '', ORCA_LINES: 'one\ntwo' };
    const ran = await launch('node', ['-e', 'console.log(JSON.stringify({ env: process.env, cwd: process.cwd() }))'], { cwd: dir, env });
    const seen = JSON.parse(text(ran.stdout)) as { env: Record<string, string>; cwd: string };
    expect(seen.cwd).toBe(realpathSync(dir));
    expect(seen.env).toEqual(env);
  });

  it('feeds `input` to the program, and it reads nothing without', async () => {
    const dir = tempDir('orca-launch-');
    expect(text((await launch('cat', [], { cwd: dir, env: ENV, input: 'abc\n\u00e9' })).stdout)).toBe('abc\n\u00e9');
    expect(text((await launch('cat', [], { cwd: dir, env: ENV })).stdout)).toBe('');
  });

  it('reports the exit code and what the program said on stderr', async () => {
    const ran = await launch('sh', ['-c', 'echo out; echo why >&2; exit 3'], { cwd: tempDir('orca-launch-'), env: ENV });
    expect(ran).toEqual({ code: 3, signal: null, stdout: Buffer.from('out\n'), stderr: Buffer.from('why\n') });
  });

  it("reads a status above 128 as git's own when it said why, and as the signal when it died silent", async () => {
    const dir = tempDir('orca-launch-');
    // As git exits on a usage error.
    const usage = await launch('sh', ['-c', 'echo "error: unknown option" >&2; exit 129'], { cwd: dir, env: ENV });
    expect(usage).toMatchObject({ code: 129, signal: null });
    const killed = await launch('sh', ['-c', 'kill -KILL $$'], { cwd: dir, env: ENV });
    expect(killed).toMatchObject({ code: null, signal: 'SIGKILL' });
  });

  it('kills the program on abort and rejects as an aborted spawn does', async () => {
    const dir = tempDir('orca-launch-');
    const controller = new AbortController();
    const running = launch('sh', ['-c', 'echo $$ > pid; exec sleep 30'], { cwd: dir, env: ENV, signal: controller.signal });
    const pid = await waitForPid(path.join(dir, 'pid'));
    controller.abort();
    await expect(running).rejects.toMatchObject({ name: 'AbortError' });
    expect(alive(pid)).toBe(false);
  });

  it("spawns an interruptible program from this process: the terminal's Ctrl-C (SIGINT) ends it", async () => {
    const dir = tempDir('orca-launch-');
    const running = launch('sh', ['-c', 'echo $$ > pid; exec sleep 30'], { cwd: dir, env: ENV, interruptible: true });
    const pid = await waitForPid(path.join(dir, 'pid'));
    // A program started in a shell's background would ignore it (SigIgn bit 2).
    const ignored = BigInt(`0x${/SigIgn:\s*([0-9a-f]+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]}`);
    expect(ignored & 2n).toBe(0n);
    process.kill(pid, 'SIGINT');
    expect(await running).toMatchObject({ code: null, signal: 'SIGINT' });
  });

  it('stops listening on a signal once its call has ended: one signal may serve thousands of calls', async () => {
    const dir = tempDir('orca-launch-');
    const signal = new AbortController().signal;
    await Promise.all(Array.from({ length: 20 }, () => launch('true', [], { cwd: dir, env: ENV, signal })));
    expect(getEventListeners(signal, 'abort')).toEqual([]);
  });

  it('lowers the priority of the program when asked', async () => {
    const dir = tempDir('orca-launch-');
    // The priority is set once the program runs: it reads its own after waiting for it.
    const script = 'while [ "$(cut -d" " -f19 /proc/$$/stat)" = 0 ]; do sleep 0.01; done; cut -d" " -f19 /proc/$$/stat';
    const ran = await launch('sh', ['-c', script], { cwd: dir, env: ENV, niceness: 10 });
    expect(text(ran.stdout).trim()).toBe('10');
  });

  it('runs calls at once, each with its own output', async () => {
    const dir = tempDir('orca-launch-');
    const runs = await Promise.all(
      Array.from({ length: 24 }, (_, i) => launch('sh', ['-c', `sleep 0.0${i % 5}; echo ${i}; echo e${i} >&2`], { cwd: dir, env: ENV })),
    );
    expect(runs.map((ran) => [text(ran.stdout), text(ran.stderr)])).toEqual(Array.from({ length: 24 }, (_, i) => [`${i}\n`, `e${i}\n`]));
  });

  it('reads large output whole, and refuses output beyond maxBuffer', async () => {
    const dir = tempDir('orca-launch-');
    const big = await launch('head', ['-c', String(5 * 1024 * 1024), '/dev/zero'], { cwd: dir, env: ENV });
    expect(big.stdout.length).toBe(5 * 1024 * 1024);
    await expect(launch('head', ['-c', '2048', '/dev/zero'], { cwd: dir, env: ENV, maxBuffer: 1024 })).rejects.toMatchObject({
      code: 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER',
    });
  });

  it('fails as spawn fails for a program or folder that is not there, and still runs what a shell could not say', async () => {
    const dir = tempDir('orca-launch-');
    await expect(launch('no-such-program-orca', [], { cwd: dir, env: ENV })).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(launch('true', [], { cwd: path.join(dir, 'gone'), env: ENV })).rejects.toMatchObject({ code: 'ENOENT' });
    const odd = await launch('node', ['-p', 'process.env["A-B"]'], { cwd: dir, env: { ...ENV, 'A-B': 'kept' } });
    expect(text(odd.stdout)).toBe('kept\n');
  });

  it('takes away the folders of launchers whose process was killed, and runs on as before when its own folder goes', () => {
    const dir = tempDir('orca-launch-');
    const gone = execFileSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' }).trim();
    mkdirSync(path.join(dir, `orca-launch-${gone}-abcdef`));
    writeFileSync(path.join(dir, `orca-launch-${gone}-abcdef`, '3.out'), 'left');
    mkdirSync(path.join(dir, `orca-launch-${process.pid}-ghijkl`));
    const entry = path.resolve('dist/shared/core/runtime/launcher.js');
    const script = `import(${JSON.stringify(entry)}).then(async ({ launch }) => {
      const options = { cwd: ${JSON.stringify(dir)}, env: { PATH: process.env.PATH } };
      console.log((await launch('echo', ['one'], options)).stdout.toString().trim());
      const fs = await import('node:fs');
      for (const name of fs.readdirSync(${JSON.stringify(dir)})) if (name.startsWith('orca-launch-' + process.pid + '-')) fs.rmSync(${JSON.stringify(dir)} + '/' + name, { recursive: true });
      console.log((await launch('echo', ['two'], options)).stdout.toString().trim());
    })`;
    const out = execFileSync('node', ['-e', script], { encoding: 'utf8', env: { ...process.env, TMPDIR: dir } });
    expect(out).toBe('one\ntwo\n');
    // With no temporary folder to write in, every call is spawned as before.
    const noFolder = execFileSync('node', ['-e', script], {
      encoding: 'utf8',
      env: { ...process.env, TMPDIR: path.join(dir, 'not-there') },
    });
    expect(noFolder).toBe('one\ntwo\n');
    expect(readdirSync(dir)).toEqual([`orca-launch-${process.pid}-ghijkl`]);
  });

  it('lets a process exit while calls are being started: nothing said on stderr, its folder gone', () => {
    const dir = tempDir('orca-launch-');
    const entry = path.resolve('dist/shared/core/runtime/launcher.js');
    // 40 calls started, then process.exit at once, as a command exits on a failure with git calls in flight.
    const script = `import(${JSON.stringify(entry)}).then(({ launch }) => {
      for (let i = 0; i < 40; i++) launch('true', [], { cwd: ${JSON.stringify(dir)}, env: { PATH: process.env.PATH } }).catch(() => {});
      setImmediate(() => process.exit(3));
    })`;
    for (let run = 0; run < 10; run++) {
      const done = spawnSync('node', ['-e', script], { encoding: 'utf8', env: { ...process.env, TMPDIR: dir } });
      expect({ status: done.status, stderr: done.stderr }).toEqual({ status: 3, stderr: '' });
    }
    // A folder whose removal met a file still being made is the next launcher's to sweep.
    execFileSync(
      'node',
      [
        '-e',
        `import(${JSON.stringify(entry)}).then(({ launch }) => launch('true', [], { cwd: ${JSON.stringify(dir)}, env: { PATH: process.env.PATH } }))`,
      ],
      {
        env: { ...process.env, TMPDIR: dir },
      },
    );
    expect(readdirSync(dir)).toEqual([]);
  });

  it('leaves nothing behind: no files of its calls, and a process that ends when its work does', () => {
    const dir = tempDir('orca-launch-');
    const entry = path.resolve('dist/shared/core/runtime/launcher.js');
    // A process whose only call is done must exit on its own: the launcher shell does not hold it.
    const script = `import(${JSON.stringify(entry)}).then(async ({ launch }) => { const r = await launch('echo', ['hi'], { cwd: ${JSON.stringify(dir)}, env: { PATH: process.env.PATH } }); console.log(r.stdout.toString().trim()); })`;
    const out = execFileSync('node', ['-e', script], { encoding: 'utf8', env: { ...process.env, TMPDIR: dir } });
    expect(out).toBe('hi\n');
    expect(execFileSync('ls', ['-A', dir], { encoding: 'utf8' })).toBe('');
  });
});

async function waitForPid(file: string): Promise<number> {
  for (;;) {
    try {
      const pid = Number(readFileSync(file, 'utf8'));
      if (pid > 0) return pid;
    } catch {
      // Not written yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
