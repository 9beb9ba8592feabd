import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compiledEntry } from '../shared/core/runtime/compiledEntry.js';
import { CLAUDE_CODE_VERSION, greetingTurns, installClaudeCode, sideBySideStandIn } from '../tests/support/claudeCodeTask.js';
import { type Behaviour, reply } from '../tests/support/messagesServer.js';
import { BenchEnv, benchTempRoot } from './benchEnv.js';
import { makeRunRepo } from './runScript.js';
import { medianPhases, type SessionPhases, sessionPhases } from './sessionPhases.js';
import { median, round } from './stats.js';

/** `orca agent` beside `claude -p` (the Claude Code compat/claudeCode.compat.ts pins): issue 35 wants orca faster. */
export const SINGLE_AGENT_TARGET = 0.8;
/** `orca agent --agent claude-code` (the ACP preset, in the sandbox) beside `claude -p` (issue 34). */
export const SINGLE_AGENT_ACP_TARGET = 1.3;

/**
 * One agent, one four-turn task (Read, Edit, Bash, then the answer), against the same local
 * Messages stand-in answering at once: `orca agent --no-local-workers` with an `orca worker`
 * already running (so its queue, worktree and commit are in the time, not a worker's start) beside
 * `claude -p` from the pinned npm package. Wall time from spawning each to its exit, alternating
 * which goes first, a fresh repository for each run; the median of each.
 *
 * With `agent: 'claude-code'` orca's side is `orca agent --agent claude-code`: Claude Code through
 * Zed's ACP adapter, the whole agent process in the sandbox (bwrap), its Read, Edit and Bash
 * orca's over MCP. Its turns are the same task as it must say it: `mcp__orca__Read`, `…Edit`,
 * `…Bash`, `…Report`, four requests as `claude -p`'s four (Read, Edit, Bash, its answer): its
 * accepted Report ends its turn, as orca's own loop ends at Report (before 2026-12-07 it asked the
 * model once more, for closing words).
 */
export interface SingleAgentResult {
  orca_ms: number;
  claude_code_ms: number;
  ratio: number;
  runs: number;
  orca_samples: number[];
  /** Where orca's side's time went (median of each phase over the runs): bench/sessionPhases.ts. */
  orca_phases: SessionPhases;
  claude_code_samples: number[];
  claude_code_version: string;
  /** orca's side: its own loop, or the named ACP agent. */
  agent: 'orca' | 'claude-code';
  /** The Claude Code the adapter ran: the Agent SDK's own, or the same pinned one `claude -p` is (on PATH, which the preset prefers). */
  adapter_claude_code?: 'agent-sdk' | 'pinned';
}

export interface SingleAgentOptions {
  runs?: number;
  /** orca's side is `orca agent --agent claude-code` rather than orca's own loop. */
  agent?: 'claude-code';
  /**
   * With `agent`: the pinned Claude Code `claude -p` runs is on the worker's PATH, which the preset
   * runs rather than the Agent SDK's bundled one, so both sides run the same Claude Code and the figure is orca's.
   */
  samePinnedClaudeCode?: boolean;
}

const PROMPT = 'Change world to there in greet.txt, then echo done.';

export async function singleAgentBenchmark(options: SingleAgentOptions = {}): Promise<SingleAgentResult> {
  const runs = options.runs ?? 10;
  const acp = options.agent === 'claude-code';
  const pinned = acp && options.samePinnedClaudeCode === true;
  const work = mkdtempSync(path.join(benchTempRoot(), 'orca-bench-single-'));
  // The agent's sandbox mounts a fresh /dev and a private /tmp: a Claude Code it runs must be installed elsewhere.
  const install = pinned ? mkdtempSync(path.join(sandboxVisibleTemp(), 'orca-bench-claude-code-')) : path.join(work, 'claude-code');
  try {
    const claude = await installClaudeCode(install);
    const server = sideBySideStandIn();
    const url = await server.start();
    const modelEnv = {
      ANTHROPIC_BASE_URL: url,
      ANTHROPIC_API_KEY: 'sk-ant-bench',
      // The pinned `claude` on the worker's PATH: the preset runs a native Claude Code it finds there (docs/agents.md).
      ...(pinned ? { PATH: `${path.dirname(claude)}${path.delimiter}${process.env.PATH ?? ''}` } : {}),
    };
    try {
      return await BenchEnv.with(async (env) => {
        await env.startWorker({ concurrency: 1, env: modelEnv });
        const home = env.dir('claude-home');
        const orca: number[] = [];
        const phases: SessionPhases[] = [];
        const claudeCode: number[] = [];
        const runOrca = async (i: number) => {
          const repo = project(path.join(work, `orca-${i}`));
          server.enqueue(...(acp ? acpGreetingTurns('greet.txt') : greetingTurns('greet.txt', 'report')));
          const agentArgs = acp ? ['--agent', 'claude-code'] : [];
          const start = performance.now();
          const spawnedAt = Date.now();
          const done = await run(
            process.execPath,
            [
              compiledEntry('coordinator/cli.ts'),
              'agent',
              ...agentArgs,
              '--role',
              'worker',
              PROMPT,
              '--repo',
              repo,
              '--no-local-workers',
              '--json',
            ],
            { cwd: repo, env: env.processEnv(modelEnv) },
          );
          orca.push(performance.now() - start);
          const exitedAt = Date.now();
          if (done.code !== 0) throw new Error(`orca agent exited ${done.code}:\n${done.stdout}\n${done.stderr}`);
          const out = JSON.parse(done.stdout) as { run_id: string; status?: string; sandbox?: string };
          phases.push(sessionPhases(env.home, out.run_id, spawnedAt, exitedAt));
          if (out.status !== 'completed') throw new Error(`orca agent did not complete its task:\n${done.stdout}`);
          if (acp && out.sandbox !== 'bwrap') throw new Error(`orca agent --agent claude-code ran with sandbox ${out.sandbox}, not bwrap`);
        };
        const runClaude = async (i: number) => {
          const repo = project(path.join(work, `claude-${i}`));
          server.enqueue(...greetingTurns(path.join(repo, 'greet.txt'), 'text'));
          const start = performance.now();
          const done = await run(claude, ['-p', PROMPT, '--permission-mode', 'acceptEdits', '--output-format', 'json'], {
            cwd: repo,
            env: {
              ...process.env,
              ...modelEnv,
              HOME: home,
              CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
              DISABLE_AUTOUPDATER: '1',
              CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
            },
          });
          claudeCode.push(performance.now() - start);
          if (done.code !== 0) throw new Error(`claude -p exited ${done.code}:\n${done.stdout}\n${done.stderr}`);
          if (readFileSync(path.join(repo, 'greet.txt'), 'utf8') !== 'hello\nthere\n') throw new Error('claude -p did not make the edit');
        };
        // One untimed run each first: the page cache and V8's code cache are warm for both.
        await runOrca(-1);
        await runClaude(-1);
        orca.length = 0;
        phases.length = 0;
        claudeCode.length = 0;
        for (let i = 0; i < runs; i += 1) {
          if (i % 2 === 0) {
            await runOrca(i);
            await runClaude(i);
          } else {
            await runClaude(i);
            await runOrca(i);
          }
        }
        const orcaMs = median(orca);
        const claudeMs = median(claudeCode);
        return {
          orca_ms: round(orcaMs),
          claude_code_ms: round(claudeMs),
          ratio: round(orcaMs / claudeMs, 2),
          runs,
          orca_samples: orca.map((ms) => round(ms)),
          orca_phases: medianPhases(phases),
          claude_code_samples: claudeCode.map((ms) => round(ms)),
          claude_code_version: CLAUDE_CODE_VERSION,
          agent: acp ? 'claude-code' : 'orca',
          ...(acp ? { adapter_claude_code: pinned ? ('pinned' as const) : ('agent-sdk' as const) } : {}),
        };
      });
    } finally {
      await server.close();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
    rmSync(install, { recursive: true, force: true });
  }
}

/** A temp folder the agent's sandbox can read: ORCA_BENCH_DIR's when it is one, else /var/tmp. */
function sandboxVisibleTemp(): string {
  const root = benchTempRoot();
  return root.startsWith('/dev/') || root === os.tmpdir() || root.startsWith(`${os.tmpdir()}/`) ? '/var/tmp' : root;
}

/**
 * The same task's turns as Claude Code through the ACP adapter needs them: orca's tools over MCP;
 * its accepted Report ends its turn, with no closing request after it (docs/agents.md).
 */
function acpGreetingTurns(file: string): Behaviour[] {
  return [
    reply.toolUse('mcp__orca__Read', { file_path: file }),
    reply.toolUse('mcp__orca__Edit', { file_path: file, old_string: 'world', new_string: 'there' }),
    reply.toolUse('mcp__orca__Bash', { command: 'echo done' }),
    reply.toolUse('mcp__orca__Report', { summary: 'Changed the greeting.', unresolved: [], claimed_checks: [] }),
  ];
}

/** The task's repository: one file, and the permissions both sides need to act without asking. */
function project(dir: string): string {
  makeRunRepo(dir, {
    'greet.txt': 'hello\nworld\n',
    '.claude/settings.json': JSON.stringify({ permissions: { allow: ['Bash(echo:*)', 'Edit', 'Read'] } }, null, 2),
  });
  return dir;
}

function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // A run that hangs (a stand-in with no answer left) ends as a failure, not as a stuck benchmark.
  const deadline = setTimeout(() => child.kill('SIGKILL'), 180_000);
  return once(child, 'close').then(([code]) => {
    clearTimeout(deadline);
    return { code: code as number | null, stdout, stderr };
  });
}
