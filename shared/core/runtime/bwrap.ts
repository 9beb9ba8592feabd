import { spawnSync } from 'node:child_process';
import { accessSync, constants, type Dirent, existsSync, mkdirSync, readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * bubblewrap, the sandbox orca runs agent-written code in: an agent's Bash commands
 * (policy/permissions/sandbox.ts decides when) and the integration checks on the merged tree
 * (infra/verify/checks/checkSandbox.ts).
 */
export interface BwrapOptions {
  /** The one place on the host the command may write (an agent's worktree, the integration worktree). */
  worktree: string;
  /** A private folder, mounted as /tmp inside the sandbox (created if missing). */
  tempDir: string;
  /** Leave the network on; otherwise the command gets a network namespace of its own, with nothing in it. */
  network: boolean;
  /** Further host folders the command may write (a worktree's git folder, for instance). */
  extraWritable?: string[];
  /**
   * Host folders the command must see even where the sandbox's private /tmp hides them: the
   * repository's git folder and linked dependencies of a worktree, when they live under /tmp.
   */
  extraReadable?: string[];
}

/** How to start one command: the program and its arguments. */
export type WrappedCommand = (command: string, cwd: string) => { file: string; args: string[] };

const probes = new Map<string, string | undefined>();

/**
 * Runs Bash under bubblewrap: the whole filesystem read-only, the worktree and a private /tmp
 * (TMPDIR, at the private folder's own path too) writable, fresh /dev and /proc, its own process namespace (killing bwrap kills everything
 * inside), no capabilities (even for root), and no network unless it is allowed.
 */
export function bwrapWrap(bwrap: string, options: BwrapOptions): WrappedCommand {
  mkdirSync(options.tempDir, { recursive: true });
  const tempDir = realpathSync(options.tempDir);
  // Binds apply in order: /tmp first, so a worktree that lives under /tmp stays visible on top of it.
  const writable = [realpathSync(options.worktree), ...(options.extraWritable ?? []).map((dir) => realpathSync(dir))];
  const readable = withHiddenLinkTargets((options.extraReadable ?? []).filter((dir) => existsSync(dir)).map((dir) => realpathSync(dir)));
  const fixed = [
    '--die-with-parent',
    '--new-session',
    '--unshare-pid',
    '--cap-drop',
    'ALL',
    ...(options.network ? [] : ['--unshare-net']),
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--bind',
    tempDir,
    '/tmp',
    // Also at its own path, which TMPDIR names: a scratch file written there is at the same path
    // for the host's tools, so Read and Grep reach it (the session folder is readable to them).
    '--bind',
    tempDir,
    tempDir,
    ...readable.flatMap((dir) => ['--ro-bind', dir, dir]),
    ...writable.flatMap((dir) => ['--bind', dir, dir]),
    '--setenv',
    'TMPDIR',
    tempDir,
  ];
  return (command, cwd) => ({ file: bwrap, args: [...fixed, '--chdir', cwd, '--', 'bash', '-c', command] });
}

/**
 * The readable folders and, one level down (two for npm's `@scope/` folders and `.bin`), what their
 * symlinks point to under the host's /tmp, which the private /tmp hides: a dependency folder
 * linked in from a checkout under /tmp (`npm link`, a package borrowed from another install)
 * would otherwise hold links that lead nowhere inside the sandbox.
 */
function withHiddenLinkTargets(dirs: string[]): string[] {
  const found = new Set(dirs);
  const hidden = (target: string) => target === '/tmp' || target.startsWith('/tmp/');
  const follow = (dir: string, depth: number) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // Unreadable here is unreadable in the sandbox too: nothing to add.
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isSymbolicLink()) {
        let target: string;
        try {
          target = realpathSync(full);
        } catch {
          continue; // A dangling link leads nowhere on the host either.
        }
        if (hidden(target) && !dirs.some((root) => target === root || target.startsWith(root + path.sep))) {
          found.add(statSync(target).isDirectory() ? target : path.dirname(target));
        }
      } else if (depth > 0 && entry.isDirectory() && (entry.name.startsWith('@') || entry.name === '.bin')) {
        follow(full, depth - 1);
      }
    }
  };
  for (const dir of dirs) if (hidden(dir)) follow(dir, 1);
  return [...found];
}

export function findOnPath(program: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, program);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not in this folder: try the next one.
    }
  }
  return undefined;
}

/**
 * Whether bwrap can build a sandbox here (it cannot where user namespaces are turned off), tried
 * once per process: undefined when it can, otherwise what went wrong.
 */
export function probeBwrap(bwrap: string): string | undefined {
  if (!probes.has(bwrap)) {
    const probe = spawnSync(bwrap, ['--ro-bind', '/', '/', '--unshare-net', '--unshare-pid', '--cap-drop', 'ALL', '--', 'true'], {
      encoding: 'utf8',
    });
    let failed: string | undefined;
    if (probe.error) failed = probe.error.message;
    else if (probe.status !== 0) failed = probe.stderr.trim() || `exit code ${probe.status}`;
    probes.set(bwrap, failed === undefined ? undefined : `bwrap cannot create a sandbox here (${failed})`);
  }
  return probes.get(bwrap);
}
