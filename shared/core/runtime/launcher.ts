import { type ChildProcess, spawn } from 'node:child_process';
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { processAlive } from './processAlive.js';

/**
 * Short programs (git, mostly) started from a small shell that stays running, rather than forked
 * from this process. Node forks on Linux, and a fork copies the page tables of the whole process
 * while its event loop waits: from a worker or the coordinator (80–140 MB) a spawn blocked
 * 3–4 ms of CPU each, about 1,400 spawns an efficiency run (measured with a timing shim over
 * `ChildProcess.prototype.spawn`: 1.5 s of the coordinator's thread, 0.5 s of each worker's);
 * forked from the shell (a few MB) the same git call costs this process 0.3–0.7 ms of CPU and
 * about half the wall time. No library does this without a native addon (README: Node and git
 * only), so it is written here.
 *
 * The program runs as `spawn` would run it: its argument vector and its environment as given (the
 * shell starts with an empty one; each call exports its own, every value quoted; bash as /bin/sh
 * adds its `_`), its folder, its standard input from `input` (else /dev/null); its output goes to
 * files in a folder of this process's own (mode 0700), read whole once it exits. Where a call cannot be said that
 * way (no /bin/sh, a folder or program that is not there, an environment name a shell cannot
 * export), it is spawned from here as before, so its failure reads as spawn's does; so is one
 * that must die with the terminal's Ctrl-C (`interruptible`).
 */
export interface LaunchOptions {
  cwd: string;
  /** The program's whole environment. */
  env: NodeJS.ProcessEnv;
  /** Written to its standard input (else it reads /dev/null). */
  input?: string | Buffer;
  /** Aborting kills it (SIGTERM) and rejects with an AbortError. */
  signal?: AbortSignal;
  /** Bytes of stdout beyond which the call is refused (default 64 MiB). */
  maxBuffer?: number;
  /**
   * Stdout handed over in chunks instead of held whole (a listing of 20,000 files), with no
   * bound; `Launched.stdout` is then empty. A chunk is the callee's to keep. A throw stops the
   * call, which rejects with it.
   */
  onStdout?: (chunk: Buffer) => void;
  /** A lower CPU priority for background work, from the program's first instruction (`nice -n`). */
  niceness?: number;
  /**
   * Spawned from this process, so that the terminal's Ctrl-C (SIGINT to the foreground process
   * group) ends it: a program a shell starts in the background ignores SIGINT and SIGQUIT (POSIX,
   * without job control; dash cannot be told otherwise). For what can wait on something else,
   * a network (a push, a fetch); a short local call ends in moments, or on `signal`.
   */
  interruptible?: boolean;
}

/** How the program ended: its exit code, or the signal that killed it. */
export interface Launched {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: Buffer;
}

const DEFAULT_MAX_BUFFER = 64 * 1024 * 1024;
/** The launcher's folders: `orca-launch-<pid>-XXXXXX` under the temporary folder. */
const FOLDER_PREFIX = 'orca-launch-';
const LAUNCHER_FOLDER = new RegExp(`^${FOLDER_PREFIX}(\\d+)-`);
const SHELL = '/bin/sh';
/** The helper's loop: each line names a script to source; each script starts one program in the background. */
const LOOP = 'while IFS= read -r f; do . "$f"; done';
const EXPORTABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Names a shell keeps for itself (read-only in bash, which is /bin/sh on macOS): a call that sets one is spawned from here. */
const SHELL_OWN = new Set(['PPID', 'UID', 'EUID', 'BASHOPTS', 'SHELLOPTS', 'BASH_VERSINFO', 'GROUPS']);

/** Runs `program` with `args`; resolves however it exits, rejects when it could not run, was aborted, or printed too much. */
export function launch(program: string, args: readonly string[], options: LaunchOptions): Promise<Launched> {
  if (options.signal?.aborted) return Promise.reject(abortError(options.signal));
  if (options.interruptible) return spawnDirect(program, args, options);
  const file = resolveProgram(program, options.env.PATH);
  const nice = options.niceness === undefined ? [] : [resolveProgram('nice', options.env.PATH), '-n', String(options.niceness)];
  const sayable =
    file !== undefined &&
    !nice.includes(undefined) &&
    existsSync(options.cwd) &&
    Object.keys(options.env).every((name) => EXPORTABLE.test(name) && !SHELL_OWN.has(name));
  const helper = sayable ? ShellHelper.get() : undefined;
  if (!helper) return spawnDirect(program, args, options);
  try {
    return helper.run([...(nice as string[]), file!, ...args], options);
  } catch (error) {
    // Its folder could not be written (removed under it, the disk full): this call, and the next, as before.
    ShellHelper.giveUp(error as Error);
    return spawnDirect(program, args, options);
  }
}

/** `program` as the shell must name it: its path, found on PATH as execvp would find it; undefined when not found. */
function resolveProgram(program: string, searchPath: string | undefined): string | undefined {
  const key = `${searchPath ?? ''}\0${program}`;
  if (!resolved.has(key)) resolved.set(key, findProgram(program, searchPath));
  return resolved.get(key);
}

const resolved = new Map<string, string | undefined>();

/** Only absolute paths: a name relative to the program's folder (a PATH entry `.` or empty) is left to spawn. */
function findProgram(program: string, searchPath: string | undefined): string | undefined {
  const candidates = program.includes('/') ? [program] : (searchPath ?? '').split(':').map((dir) => path.join(dir, program));
  for (const file of candidates) {
    if (!path.isAbsolute(file)) return undefined;
    if (isExecutableFile(file)) return file;
  }
  return undefined;
}

function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false; // Not there, or not executable: look further.
  }
}

/** One running call of the helper's. */
interface Call {
  files: { script: string; input?: string; stdout: string; stderr: string };
  options: LaunchOptions;
  pid?: number;
  aborted: boolean;
  /** Listening on `options.signal` until the call ends (a signal may outlive thousands of calls: the pool's). */
  onAbort?: () => void;
  resolve: (launched: Launched) => void;
  reject: (error: Error) => void;
}

/**
 * The running shell, one per process, started on the first call. It is not what keeps this
 * process alive: only a call waiting for it is.
 */
class ShellHelper {
  private static current: ShellHelper | undefined;
  /** Set when the shell could not be started or failed: every call is spawned from here after that. */
  private static broken = false;

  /** The shell is not used again by this process (it is told to end). */
  static giveUp(error: Error): void {
    const helper = ShellHelper.current;
    ShellHelper.broken = true;
    helper?.fail(error);
    helper?.child.stdin?.end();
  }

  static get(): ShellHelper | undefined {
    if (ShellHelper.current || ShellHelper.broken) return ShellHelper.current;
    if (!existsSync(SHELL)) return undefined;
    try {
      ShellHelper.current = new ShellHelper();
    } catch {
      // No folder of its own (a temporary folder not there, or not writable): every call is spawned from here.
      ShellHelper.broken = true;
    }
    return ShellHelper.current;
  }

  private readonly child: ChildProcess;
  private readonly folder: string;
  private readonly calls = new Map<string, Call>();
  private next = 0;
  private pendingLine = '';

  private constructor() {
    sweepFoldersOfGoneProcesses();
    this.folder = mkdtempSync(path.join(os.tmpdir(), `${FOLDER_PREFIX}${process.pid}-`));
    this.child = spawn(SHELL, ['-c', LOOP], { env: {}, stdio: ['pipe', 'pipe', 'ignore'] });
    this.child.stdout!.setEncoding('utf8');
    this.child.stdout!.on('data', (text: string) => this.read(text));
    this.child.on('error', (error) => this.fail(error));
    this.child.on('exit', (code, signal) => this.fail(new Error(`orca's launcher shell ended (${signal ?? `exit ${code}`})`)));
    this.child.stdin!.on('error', (error) => this.fail(error));
    this.hold(false);
    process.once('exit', () => this.removeFolder());
  }

  /**
   * At this process's exit: the shell is stopped, then its folder goes. A program it was starting
   * at that moment can still create its output file there during the removal (a process that
   * exits with calls in flight, as a command does on a failure it reports): rmSync then meets a
   * folder not empty, and is retried. Should it still fail, the folder is left to the sweep of
   * gone processes' folders (sweepFoldersOfGoneProcesses) the next launcher on this host runs, as
   * a killed process's is: an exit handler that throws prints its stack trace after whatever the
   * command said last.
   */
  private removeFolder(): void {
    this.child.kill('SIGKILL');
    try {
      rmSync(this.folder, { recursive: true, force: true, maxRetries: 5, retryDelay: 2 });
    } catch {
      // Left for the next launcher's sweep (above).
    }
  }

  /** Runs `command` (its program's path, then its arguments). */
  run(command: readonly string[], options: LaunchOptions): Promise<Launched> {
    const id = String((this.next += 1));
    const base = path.join(this.folder, id);
    const files = {
      script: `${base}.sh`,
      stdout: `${base}.out`,
      stderr: `${base}.err`,
      input: options.input === undefined ? undefined : `${base}.in`,
    };
    if (files.input) writeFileSync(files.input, options.input!);
    writeFileSync(files.script, callScript(id, command, options, files));
    return new Promise((resolve, reject) => {
      const call: Call = { files, options, aborted: false, resolve, reject };
      this.calls.set(id, call);
      this.hold(true);
      if (options.signal) {
        call.onAbort = () => this.abort(call);
        options.signal.addEventListener('abort', call.onAbort, { once: true });
      }
      this.child.stdin!.write(`${files.script}\n`);
    });
  }

  /** Lines `P <id> <pid>` (started) and `E <id> <status>` (ended). */
  private read(text: string): void {
    const lines = (this.pendingLine + text).split('\n');
    this.pendingLine = lines.pop()!;
    for (const line of lines) {
      const [kind, id, value] = line.split(' ');
      const call = this.calls.get(id ?? '');
      if (!call) continue;
      if (kind === 'P') this.started(call, Number(value));
      if (kind === 'E') this.ended(id!, call, Number(value));
    }
  }

  private started(call: Call, pid: number): void {
    call.pid = pid;
    if (call.aborted) killQuietly(pid);
  }

  private ended(id: string, call: Call, status: number): void {
    this.forget(id, call);
    this.hold(this.calls.size > 0);
    try {
      if (call.aborted) return call.reject(abortError(call.options.signal!));
      call.resolve(endedAs(status, call));
    } catch (error) {
      call.reject(error as Error);
    } finally {
      for (const file of Object.values(call.files)) if (file) unlinkQuietly(file);
    }
  }

  private forget(id: string, call: Call): void {
    this.calls.delete(id);
    if (call.onAbort) call.options.signal!.removeEventListener('abort', call.onAbort);
  }

  private abort(call: Call): void {
    call.aborted = true;
    if (call.pid !== undefined) killQuietly(call.pid);
  }

  /** The shell is gone: its calls fail saying so, and later calls are spawned from here. */
  private fail(error: Error): void {
    ShellHelper.broken = true;
    if (ShellHelper.current === this) ShellHelper.current = undefined;
    for (const [id, call] of this.calls) {
      this.forget(id, call);
      call.reject(new Error(`${error.message}: the program it had started (${call.files.script}) was not seen to end`));
    }
    this.hold(false);
  }

  /** The shell's output keeps this process alive only while a call waits for it. */
  private hold(waiting: boolean): void {
    const out = this.child.stdout as unknown as { ref(): void; unref(): void };
    const input = this.child.stdin as unknown as { unref(): void };
    if (waiting) out.ref();
    else out.unref();
    input.unref();
    this.child.unref();
  }
}

/**
 * Removes the folders of launchers whose process is gone (killed: a process that exits removes
 * its own). Only what is left from a call that was running then is in one.
 */
function sweepFoldersOfGoneProcesses(): void {
  for (const name of readdirSync(os.tmpdir())) {
    const pid = LAUNCHER_FOLDER.exec(name)?.[1];
    if (pid && Number(pid) !== process.pid && !processAlive(Number(pid)))
      rmSync(path.join(os.tmpdir(), name), { recursive: true, force: true });
  }
}

/**
 * The script one call sources: a background subshell that starts the program (its folder, its
 * environment alone, its files), says its pid, waits for it and says how it ended.
 */
function callScript(id: string, command: readonly string[], options: LaunchOptions, files: Call['files']): string {
  const env = Object.entries(options.env).filter(([, value]) => value !== undefined);
  const exports = env.length > 0 ? `export ${env.map(([name, value]) => `${name}=${quote(value!)}`).join(' ')} && ` : '';
  const program = `exec ${command.map(quote).join(' ')}`;
  const redirects = `<${quote(files.input ?? '/dev/null')} >${quote(files.stdout)} 2>${quote(files.stderr)}`;
  // PWD, OLDPWD and SHLVL are the shell's own: the program gets them only if the caller gave them.
  const start = `{ cd -- ${quote(path.resolve(options.cwd))} && unset PWD OLDPWD SHLVL && ${exports}${program}; } ${redirects} &`;
  return `( ${start}\necho "P ${id} $!"; wait $!; echo "E ${id} $?" ) &\n`;
}

/** A shell word that is exactly `text`. */
function quote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/**
 * The shell's status as spawn would report it. A shell says a program killed by signal N ended
 * with 128 + N, which a program can also exit with (git's usage errors exit 129, having said so):
 * a status above 128 with nothing on stderr reads as the signal, one with a reason there as the
 * exit code. Either way it is never read as success.
 */
function endedAs(status: number, call: Call): Launched {
  const { onStdout, maxBuffer = DEFAULT_MAX_BUFFER } = call.options;
  if (onStdout) handOver(call.files.stdout, onStdout);
  else if (statSync(call.files.stdout).size > maxBuffer) throw maxBufferError();
  const stdout = onStdout ? Buffer.alloc(0) : readFileSync(call.files.stdout);
  const stderr = readFileSync(call.files.stderr);
  const signal = status > 128 && stderr.length === 0 ? signalName(status - 128) : null;
  return signal ? { code: null, signal, stdout, stderr } : { code: status, signal: null, stdout, stderr };
}

/** The file's bytes, a chunk at a time, as a pipe would have given them. */
function handOver(file: string, onChunk: (chunk: Buffer) => void): void {
  const fd = openSync(file, 'r');
  try {
    for (;;) {
      const chunk = Buffer.allocUnsafe(CHUNK);
      const read = readSync(fd, chunk, 0, CHUNK, null);
      if (read === 0) return;
      onChunk(read === CHUNK ? chunk : chunk.subarray(0, read));
    }
  } finally {
    closeSync(fd);
  }
}

const CHUNK = 64 * 1024;

function signalName(number: number): NodeJS.Signals | null {
  const found = Object.entries(os.constants.signals).find(([, value]) => value === number);
  return (found?.[0] as NodeJS.Signals | undefined) ?? null;
}

/** The same call spawned from this process (what execFile does), for what the shell cannot say. */
function spawnDirect(program: string, args: readonly string[], options: LaunchOptions): Promise<Launched> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { cwd: options.cwd, env: options.env, signal: options.signal, stdio: ['pipe', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let size = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      if (options.onStdout) return handToCaller(chunk);
      size += chunk.length;
      if (size > (options.maxBuffer ?? DEFAULT_MAX_BUFFER)) {
        child.kill('SIGKILL');
        return reject(maxBufferError());
      }
      stdout.push(chunk);
    });
    const handToCaller = (chunk: Buffer) => {
      try {
        options.onStdout!(chunk);
      } catch (error) {
        child.kill('SIGKILL');
        reject(error);
      }
    };
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    // Not reaped before the event loop runs again: the pid is still its own.
    if (options.niceness !== undefined && child.pid !== undefined) lowerOrKill(child, options.niceness, reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr) }));
    child.stdin.on('error', () => undefined); // A program that exits without reading its input: what it printed still counts.
    child.stdin.end(options.input ?? '');
  });
}

function lowerOrKill(child: ChildProcess, niceness: number, reject: (error: Error) => void): void {
  try {
    os.setPriority(child.pid!, niceness);
  } catch (error) {
    if ((error as { info?: { code?: string } }).info?.code === 'ESRCH') return;
    child.kill('SIGKILL');
    reject(new Error(`could not lower the priority of ${child.spawnfile}: ${(error as Error).message}`));
  }
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    // Ended on its own meanwhile.
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Never written (the shell failed before the redirection) or already gone.
  }
}

function abortError(signal: AbortSignal): Error {
  return Object.assign(new Error('The operation was aborted', { cause: signal.reason }), { name: 'AbortError', code: 'ABORT_ERR' });
}

function maxBufferError(): Error {
  return Object.assign(new RangeError('stdout maxBuffer length exceeded'), { code: 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER' });
}
