import { execFile } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { AcpAgent } from '../../shared/core/agents/agentBackend.js';
import { findOnPath } from '../../shared/core/sandbox/bwrap.js';

/** Which build of what it runs an agent was given, and why, as the job's events say it. */
export interface NativeChoice {
  /** The variable naming the native build to the agent, when orca chose it. */
  env: Record<string, string>;
  /** The program it runs (its real path): its folder is made readable in the sandbox (it may be under a /tmp the sandbox hides). */
  program?: string;
  note: string;
  level: 'info' | 'warn';
}

/** `claude --version` once per worker per build (its path and modification time): it does not change under a running worker. */
const versions = new Map<string, Promise<string | undefined>>();

/**
 * The native build an agent runs instead of the one it bundles (AcpAgent's `native`, docs/agents.md
 * "Which Claude Code runs"): the user's own choice (the variable set) wins; else the program on
 * PATH, when its version has the major of the one the agent's SDK was built with and is no older
 * (an older one may lack what the SDK asks of it); else the bundled one, the note saying why.
 */
export async function chooseNative(agent: AcpAgent, agentFile: string, env: NodeJS.ProcessEnv): Promise<NativeChoice | undefined> {
  const native = agent.native;
  if (!native) return undefined;
  const bundled = `the ${agent.name} agent runs the Claude Code its Agent SDK bundles`;
  const own = env[native.variable];
  if (own) {
    const program = existsSync(own) ? realpathSync(own) : undefined;
    return { env: {}, program, level: 'info', note: `the ${agent.name} agent runs the Claude Code ${native.variable} names: ${own}` };
  }
  const found = findOnPath(native.program, env);
  if (!found)
    return { env: {}, level: 'info', note: `${bundled} (no native ${native.program} on PATH: installing one makes it start faster)` };
  const real = realpathSync(found);
  const wanted = sdkVersion(agentFile, native.package, native.field);
  if (!wanted)
    return {
      env: {},
      level: 'warn',
      note: `${bundled}: ${native.package}'s ${native.field} was not found beside ${agentFile}, so ${real} cannot be checked against it`,
    };
  const have = await versionOf(real, env);
  if (!have) return { env: {}, level: 'warn', note: `${bundled}: ${real} --version gave no version` };
  if (!speaksTo(have, wanted)) {
    return {
      env: {},
      level: 'warn',
      note: `${bundled}: the native ${native.program} on PATH (${real}) is ${have}, and its Agent SDK speaks to Claude Code ${wanted} (same major, no older)`,
    };
  }
  return {
    env: { [native.variable]: real },
    program: real,
    level: 'info',
    note: `the ${agent.name} agent runs the native Claude Code ${have} on PATH (${real}; its Agent SDK was built with ${wanted}); set ${native.variable} to choose another`,
  };
}

/** Whether a program of version `have` can stand in for `wanted`: the same major, and no older. */
export function speaksTo(have: string, wanted: string): boolean {
  const [a, b] = [numbers(have), numbers(wanted)];
  if (!a || !b || a[0] !== b[0]) return false;
  for (let i = 1; i < 3; i += 1) if (a[i] !== b[i]) return a[i]! > b[i]!;
  return true;
}

function numbers(version: string): number[] | undefined {
  const match = /^(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
  return match ? match.slice(1, 4).map(Number) : undefined;
}

/** The version a package installed beside the agent's program names in its package.json (`claudeCodeVersion`). */
function sdkVersion(agentFile: string, pkg: string, field: string): string | undefined {
  let dir = path.dirname(realpathSync(agentFile));
  for (;;) {
    const file = path.join(dir, 'node_modules', pkg, 'package.json');
    if (existsSync(file)) {
      const value: unknown = (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>)[field];
      return typeof value === 'string' ? value : undefined;
    }
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The program's own `--version` (`2.1.328 (Claude Code)`), run with nothing of the worker's environment but PATH and HOME. */
function versionOf(file: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const key = `${file}@${statSync(file).mtimeMs}`;
  let known = versions.get(key);
  if (!known) {
    known = new Promise((resolve) => {
      execFile(file, ['--version'], { timeout: 10_000, env: { PATH: env.PATH ?? '', HOME: env.HOME ?? '' } }, (error, stdout) => {
        resolve(error ? undefined : numbers(stdout) ? stdout.trim().split(/\s/)[0] : undefined);
      });
    });
    versions.set(key, known);
  }
  return known;
}
