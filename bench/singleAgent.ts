import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { compiledEntry } from '../shared/core/runtime/compiledEntry.js';
import { CLAUDE_CODE_VERSION, greetingTurns, installClaudeCode, sideBySideStandIn } from '../tests/support/claudeCodeTask.js';
import { BenchEnv, benchTempRoot } from './benchEnv.js';
import { makeRunRepo } from './runScript.js';
import { median, round } from './stats.js';

/** The Claude Code the compatibility check pins (compat/claudeCode.compat.ts), from the npm registry. */
export const SINGLE_AGENT_TARGET = 1.2;

/**
 * One agent, one four-turn task (Read, Edit, Bash, then the answer), against the same local
 * Messages stand-in answering at once: `orca agent --no-local-workers` with an `orca worker`
 * already running (so its queue, worktree and commit are in the time, not a worker's start) beside
 * `claude -p` from the pinned npm package. Wall time from spawning each to its exit, alternating
 * which goes first, a fresh repository for each run; the median of each.
 */
export interface SingleAgentResult {
  orca_ms: number;
  claude_code_ms: number;
  ratio: number;
  runs: number;
  orca_samples: number[];
  claude_code_samples: number[];
  claude_code_version: string;
}

const PROMPT = 'Change world to there in greet.txt, then echo done.';

export async function singleAgentBenchmark(options: { runs?: number } = {}): Promise<SingleAgentResult> {
  const runs = options.runs ?? 10;
  const work = mkdtempSync(path.join(benchTempRoot(), 'orca-bench-single-'));
  try {
    const claude = await installClaudeCode(path.join(work, 'claude-code'));
    const server = sideBySideStandIn();
    const url = await server.start();
    const modelEnv = { ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: 'sk-ant-bench' };
    try {
      return await BenchEnv.with(async (env) => {
        await env.startWorker({ concurrency: 1, env: modelEnv });
        const home = env.dir('claude-home');
        const orca: number[] = [];
        const claudeCode: number[] = [];
        const runOrca = async (i: number) => {
          const repo = project(path.join(work, `orca-${i}`));
          server.enqueue(...greetingTurns('greet.txt', 'report'));
          const start = performance.now();
          const done = await run(
            process.execPath,
            [compiledEntry('coordinator/cli.ts'), 'agent', '--role', 'worker', PROMPT, '--repo', repo, '--no-local-workers', '--json'],
            { cwd: repo, env: env.processEnv(modelEnv) },
          );
          orca.push(performance.now() - start);
          if (done.code !== 0) throw new Error(`orca agent exited ${done.code}:\n${done.stderr}`);
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
          claude_code_samples: claudeCode.map((ms) => round(ms)),
          claude_code_version: CLAUDE_CODE_VERSION,
        };
      });
    } finally {
      await server.close();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
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
