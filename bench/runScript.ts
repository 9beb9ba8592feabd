import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { builtinRole } from '../roles/builtinRoles.js';
import { roleSpec } from '../roles/roleSpec.js';
import { orcaBranch } from '../shared/core/git/orcaBranch.js';
import type { ScriptFile, ScriptTurn } from '../shared/core/model/scriptFile.js';
import type { AgentJobInput, RoleSpec } from '../shared/infra/queue/agentJob.js';

/**
 * Scripts for whole `orca run`s played by the Scripted model, and the small repository they run
 * on: the coordinator asks nothing (no exploring), the Plan agent names the subtasks, each worker
 * plays its own turns, and the Verification agent runs the repository's check and says PASS.
 * Benchmarks and the fault tests generate their runs with these.
 */

export interface ScriptedSubtask {
  id: string;
  /** The files it owns (globs); subtasks owning the same file are serialised by the coordinator. */
  paths: string[];
  depends_on?: string[];
  turns: ScriptTurn[];
}

/** The check every generated repository carries: TAP, so the run's test counters see one test. */
export const CHECK_COMMAND = 'sh check.sh';

export function runScript(subtasks: ScriptedSubtask[]): ScriptFile {
  return {
    latency_ms: 0,
    agents: [
      { when: { role: 'coordinator' }, turns: [{ tools: [{ name: 'Report', input: { questions: [] } }] }] },
      {
        when: { role: 'plan' },
        turns: [
          {
            tools: [
              {
                name: 'Report',
                input: {
                  subtasks: subtasks.map((task) => ({
                    id: task.id,
                    title: `subtask ${task.id}`,
                    instructions: `Carry out subtask ${task.id}.`,
                    paths: task.paths,
                    depends_on: task.depends_on ?? [],
                    checks: [CHECK_COMMAND],
                  })),
                  risks: [],
                },
              },
            ],
          },
        ],
      },
      ...subtasks.map((task) => ({ when: { role: 'worker', task: task.id }, turns: task.turns })),
      {
        when: { role: 'verification' },
        turns: [
          { tools: [{ name: 'Bash', input: { command: CHECK_COMMAND } }] },
          {
            tools: [
              {
                name: 'Report',
                input: { verdict: 'PASS', checks: [{ command: CHECK_COMMAND, exit_code: 0, result: 'the check passes' }], problems: [] },
              },
            ],
          },
        ],
      },
    ],
  };
}

/**
 * A worker's turns: write its file (in `calls - 1` steps, one model call each), then run its
 * subtask's check and Report in the last call (a worker's report needs its required check run
 * after its last change).
 */
export function writerTurns(file: string, calls: number, latencyMs = 0): ScriptTurn[] {
  const turns: ScriptTurn[] = [];
  for (let step = 1; step < calls; step += 1) {
    turns.push({ latency_ms: latencyMs, tools: [{ name: 'Write', input: { file_path: file, content: `${file}: step ${step}\n` } }] });
  }
  turns.push({
    latency_ms: latencyMs,
    tools: [
      { name: 'Bash', input: { command: CHECK_COMMAND } },
      { name: 'Report', input: { summary: `wrote ${file}`, unresolved: [], claimed_checks: [] } },
    ],
  });
  return turns;
}

/**
 * A git repository at `dir` with `files` committed on main, plus `check.sh`, a check that
 * always passes and says so in TAP. Returns its head commit.
 */
export function makeRunRepo(dir: string, files: Record<string, string> = { 'README.md': '# bench\n' }): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'check.sh'), 'echo "TAP version 13"\necho "1..1"\necho "ok 1 - the repository is in order"\n');
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), content);
  }
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('-c', 'user.name=bench', '-c', 'user.email=bench@orca.invalid', 'commit', '-q', '-m', 'initial');
  return git('rev-parse', 'HEAD');
}

/**
 * An agent job for a built-in role (the worker by default) whose Scripted model plays `turns`:
 * what a coordinator would enqueue, with the role changed only where `role` says. Benchmarks and
 * tests that drive the queue without a coordinator build their jobs with it.
 */
export function scriptedAgentJob(options: {
  runId: string;
  taskId: string;
  /** A folder (the repository on this host) or `{ remote }` for workers elsewhere. */
  repo: string | { path: string } | { remote: string };
  base: string;
  turns: ScriptTurn[];
  roleName?: string;
  role?: Partial<RoleSpec>;
  env?: Record<string, string>;
  fileState?: AgentJobInput['file_state'];
  ports?: number;
}): AgentJobInput {
  const builtin = builtinRole(options.roleName ?? 'worker');
  if (!builtin) throw new Error(`no built-in role ${options.roleName}`);
  const role = { ...roleSpec(builtin), ...options.role };
  return {
    run_id: options.runId,
    task_id: options.taskId,
    subtask: options.taskId,
    role,
    prompt: `scripted task ${options.taskId}`,
    repo: typeof options.repo === 'string' ? { path: options.repo } : options.repo,
    base: options.base,
    branch: role.workspace === 'branch' ? orcaBranch(options.runId, options.taskId) : undefined,
    model: { script: { latency_ms: 0, agents: [{ when: { role: role.name }, turns: options.turns }] } },
    env: options.env ?? {},
    file_state: options.fileState ?? [],
    ports: options.ports,
  };
}

export function reportTurn(summary = 'done', latencyMs = 0): ScriptTurn {
  return { latency_ms: latencyMs, tools: [{ name: 'Report', input: { summary, unresolved: [], claimed_checks: [] } }] };
}
