import { copyFileSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ParseError, parse as parseJsonc, printParseErrorCode } from 'jsonc-parser';
import type { AcpAgent } from '../../shared/core/agents/agentBackend.js';
import { mergeSettings, resolveOptions, resolveSettings } from '../../shared/core/agents/agentSettings.js';
import { agentShellEnv } from '../../shared/core/runtime/agentEnv.js';
import { packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { type ProcessGroup, spawnGroup } from '../../shared/core/runtime/processGroup.js';
import { sandboxPolicy } from '../../shared/core/sandbox/agentPolicy.js';
import { findOnPath } from '../../shared/core/sandbox/bwrap.js';
import { type EgressProxy, openEgressProxy } from '../../shared/core/sandbox/egressProxy.js';
import { sandboxAvailability } from '../../shared/policy/permissions/sandbox.js';
import { agentEgress } from './agentEgress.js';
import { chooseNative, type NativeChoice } from './nativeProgram.js';

/** Where and how one job's external agent runs. */
export interface AgentLaunch {
  agent: AcpAgent;
  /** The job's worktree: the one folder of the repository it may write. */
  worktree: string;
  /** The job's session folder: the agent's private home and /tmp are made there. */
  sessionDir: string;
  /** Folders it must read where the sandbox's /tmp hides them (the repository's git folder, linked dependencies). */
  readable: string[];
  /** Run it inside bwrap (the job's sandbox is bwrap). */
  sandboxed: boolean;
  /** The job's own variables (its ports, run and task). */
  jobEnv: Record<string, string>;
  /** orca's MCP server for this session (http://127.0.0.1:<port>/mcp): the one loopback port it may reach. */
  mcpUrl: string;
  /** Where its key and login come from: the worker's environment and the user's home. */
  env?: NodeJS.ProcessEnv;
  userHome?: string;
}

/** A running agent: its process group (killed with everything under it), its protocol pipes, and what it said on stderr. */
export interface AgentProcess {
  group: ProcessGroup;
  /** Kills its group and closes its own proxy: whatever ended the session. */
  close(): Promise<void>;
  stdin: NodeJS.WritableStream;
  stdout: NodeJS.ReadableStream;
  stderrTail(): string;
  sandboxed: boolean;
  /** Whether its environment has the variable, set and not empty: which login it can do itself (agentLogin.ts). */
  hasEnv(name: string): boolean;
  /** Which build of what it runs it was given (Claude Code: native or bundled), for the job's events. */
  choice?: Pick<NativeChoice, 'note' | 'level'>;
}

const STDERR_TAIL = 4_000;

/**
 * The one way an external agent is started: its whole process inside the sandbox, like Bash's —
 * the filesystem read-only but for its worktree, a private /tmp and a private home (its own
 * config and caches, seeded with its login files), in a process group of its own killed with
 * the job (abort, timeout, the worker's SIGTERM, the group watchdog). Its environment is
 * agentShellEnv() and its own variables (docs/agents.md): no Redis, no other agent's key.
 *
 * The network: a namespace of its own (nothing on its loopback) whose one way out is a proxy of
 * its own (egressProxy.ts), every request through it (loopback too: no NO_PROXY), allowed only to
 * its model API's host:port and orca's MCP server's loopback port (agentEgress.ts).
 */
export async function launchAgentProcess(launch: AgentLaunch): Promise<AgentProcess> {
  const env = launch.env ?? process.env;
  const [program, ...args] = launch.agent.command;
  const file = agentProgram(program!, env);
  if (!file) {
    throw new Error(
      `the ${launch.agent.name} agent's program ${program} is not on this worker's PATH: ${launch.agent.install ? `install it (${launch.agent.install})` : 'install it'} or name another agent (docs/agents.md)`,
    );
  }
  const native = await chooseNative(launch.agent, file, env);
  const home = privateHome(launch);
  const tempDir = path.join(launch.sessionDir, 'agent-tmp');
  mkdirSync(tempDir, { recursive: true });
  const shellEnv = agentShellEnv(env);
  for (const name of launch.agent.withoutEnv) delete shellEnv[name];
  const agentEnv: Record<string, string> = {
    ...shellEnv,
    ...launch.jobEnv,
    ...ownVariables(launch.agent, env),
    ...native?.env,
    ...launch.agent.setEnv,
    HOME: home,
    TMPDIR: tempDir,
  };
  const { settings } = launch.agent;
  if (settings?.variable) agentEnv[settings.variable] = JSON.stringify(resolveSettings(settings.value, agentEnv));
  if (settings?.file) writeSettingsFile(launch.agent.name, home, settings.file, resolveSettings(settings.value, agentEnv));
  const argv = [file, ...args, ...resolveOptions(launch.agent.options, agentEnv)];
  const proxy = launch.sandboxed ? await openEgressProxy(agentEgress(launch.agent, env, launch.mcpUrl)) : undefined;
  let group: ProcessGroup;
  try {
    const readable = [programFolder(file), ...(native?.program ? [programFolder(native.program)] : [])];
    const wrap = proxy ? sandboxWrap(launch, home, tempDir, proxy, readable) : undefined;
    const command = wrap?.(`exec ${argv.map(shellQuote).join(' ')}`, launch.worktree);
    group = command
      ? await spawnGroup(command.file, command.args, { cwd: launch.worktree, env: agentEnv, keepStdinOpen: true })
      : await spawnGroup(argv[0]!, argv.slice(1), { cwd: launch.worktree, env: agentEnv, keepStdinOpen: true });
  } catch (error) {
    await proxy?.close();
    throw error;
  }
  let tail = '';
  group.child.stderr.setEncoding('utf8');
  group.child.stderr.on('data', (chunk: string) => {
    tail = (tail + chunk).slice(-STDERR_TAIL);
  });
  const close = async () => {
    await group.kill();
    await proxy?.close();
  };
  const { stdin } = group.child;
  if (!stdin) {
    // Nothing to speak to: its group and its proxy go now, as the session's end would take them.
    await close();
    throw new Error(`the ${launch.agent.name} agent was started without a stdin pipe`);
  }
  const choice = native && { note: native.note, level: native.level };
  return {
    group,
    close,
    stdin,
    stdout: group.child.stdout,
    stderrTail: () => tail.trim(),
    hasEnv: (name) => Boolean(agentEnv[name]),
    sandboxed: proxy !== undefined,
    choice,
  };
}

/** The host's sandbox for the agent, or a clear failure: the job's sandbox said one works here. */
function sandboxWrap(launch: AgentLaunch, home: string, tempDir: string, proxy: EgressProxy, programs: string[]) {
  const found = sandboxAvailability(launch.env);
  if (found.kind === undefined) throw new Error(`the ${launch.agent.name} agent cannot be sandboxed here: ${found.problem}`);
  // orca's own folder and the programs' too (the agent's, the native build it runs): any may be under a /tmp the sandbox hides.
  const policy = sandboxPolicy({
    worktree: launch.worktree,
    tempDir,
    extraWritable: [home],
    extraReadable: [...launch.readable, packageRoot(), ...programs],
  });
  policy.network = { kind: 'proxy', endpoint: proxy.endpoint, loopbackThroughProxy: true, ownLoopback: launch.agent.ownLoopback };
  return found.wrap(policy);
}

/** The agent's own home under the session folder, with its login files copied in (never copied back). */
function privateHome(launch: AgentLaunch): string {
  const home = path.join(launch.sessionDir, 'agent-home');
  mkdirSync(home, { recursive: true });
  const userHome = launch.userHome ?? os.homedir();
  for (const file of launch.agent.loginFiles) {
    const from = path.join(userHome, file);
    if (!existsSync(from)) continue;
    mkdirSync(path.dirname(path.join(home, file)), { recursive: true });
    copyFileSync(from, path.join(home, file));
  }
  return home;
}

/**
 * The agent's settings written to its file in its private home, over the user's copy of it
 * (mergeSettings), read as the agents read theirs: JSON with comments and trailing commas.
 */
function writeSettingsFile(agent: string, home: string, relative: string, settings: unknown): void {
  const file = path.join(home, relative);
  let base: unknown = {};
  if (existsSync(file)) {
    const errors: ParseError[] = [];
    base = parseJsonc(readFileSync(file, 'utf8'), errors, { allowTrailingComma: true });
    const first = errors[0];
    if (first) {
      throw new Error(
        `the ${agent} agent's settings cannot be merged into your ~/${relative}: it does not parse (${printParseErrorCode(first.error)} at offset ${first.offset}); mend it and run again`,
      );
    }
  }
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(mergeSettings(base, settings), null, 2));
}

/** The variables the agent names as its own (key, login, endpoint), as the worker has them. */
function ownVariables(agent: AcpAgent, env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of agent.env) {
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** The program on PATH, else in orca's own node_modules/.bin (an agent installed beside orca). */
function agentProgram(program: string, env: NodeJS.ProcessEnv): string | undefined {
  if (path.isAbsolute(program)) return existsSync(program) ? program : undefined;
  const onPath = findOnPath(program, env);
  if (onPath) return onPath;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, 'node_modules', '.bin', program);
    if (existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * The folder the agent's program runs from: for a program in an npm install (a `.bin` link into
 * `node_modules`), the folder holding that `node_modules`, whose packages it loads; else the
 * program's own folder.
 */
function programFolder(file: string): string {
  const real = realpathSync(file);
  const at = real.lastIndexOf(`${path.sep}node_modules${path.sep}`);
  return at > 0 ? real.slice(0, at) : path.dirname(real);
}

/** One word for `bash -c`, whatever it holds. */
function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
