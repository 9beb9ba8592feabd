import { accessSync, chmodSync, constants, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { readTrustedConfig } from '../shared/context/config/readTrustedConfig.js';
import { readOrcaProjectConfig } from '../shared/core/git/orcaProjectConfig.js';
import { agentJobId } from '../shared/infra/queue/agentQueue.js';
import { BenchEnv } from './benchEnv.js';
import { makeRunRepo, reportTurn, scriptedAgentJob } from './runScript.js';
import { median, round } from './stats.js';

/**
 * Git processes per job: one worker runs `jobs` scripted worker jobs one after another (Read, Edit,
 * Bash, Report: a job that commits), with its PATH led by a folder holding a `git` shim that logs
 * its arguments, one record per process, then execs the real git. The lines a job adds between its
 * queueing and its result are its processes (the worker runs one job at a time, and returns the
 * result only after the job's `finally` released everything). The Bash command runs no git, so
 * what is counted is orca's own. The jobs carry the run's trusted configuration and orca.json, as
 * a coordinator's do (it reads them once per run).
 *
 * Reference: the same job before issue 25's cut (measured at its merge-base, d242f3c): 47 per
 * job: ls-files 11, diff 8, rev-parse 7, status 7, for-each-ref 4, and one each of add, branch,
 * commit-tree, ls-tree, read-tree, reset, symbolic-ref, update-ref, worktree add, write-tree.
 * Most were the owned-paths watch: after every writing call, a diff and two ls-files of the
 * worktree, and a status, a for-each-ref and a rev-parse of the user's checkout.
 */
export interface GitProcessesResult {
  git_processes_per_job: number;
  /** Median processes per job of each subcommand (`worktree add`, `rev-parse`, …), most first. */
  by_subcommand: Record<string, number>;
  /** Every job's count, in order. */
  per_job: number[];
  jobs: number;
}

export async function gitProcessesBenchmark(options: { jobs?: number; warmup?: number } = {}): Promise<GitProcessesResult> {
  const jobs = options.jobs ?? 10;
  const warmup = options.warmup ?? 1;
  return BenchEnv.with(async (env) => {
    const repo = env.dir('repo');
    const base = makeRunRepo(repo, { 'README.md': '# bench\n', 'src/note.txt': 'first line\n' });
    const shimDir = env.dir('git-shim');
    const log = path.join(env.dir('git-log'), 'git.log');
    writeFileSync(log, '');
    writeFileSync(path.join(shimDir, 'git'), `#!/bin/sh\nprintf '\\036%s\\n' "$*" >> '${log}'\nexec '${realGit()}' "$@"\n`);
    chmodSync(path.join(shimDir, 'git'), 0o755);
    await env.startWorker({ concurrency: 1, env: { PATH: `${shimDir}${path.delimiter}${process.env.PATH ?? ''}` } });

    if (process.env.ORCA_BENCH_GIT_LOG) process.stderr.write(`git log: ${log}\n`);
    // Read once per run by the coordinator, from the base commit, and carried by every job: not the job's.
    const config = await readTrustedConfig({
      project: { repo, commit: base },
      userClaudeDir: env.dir('user-home/.claude'),
      homeDir: env.dir('user-home'),
    });
    const project = await readOrcaProjectConfig(repo, base);
    const runId = `gitprocs-${env.prefix.slice(-8)}`;
    const perJob: number[] = [];
    const subcommands: Record<string, number>[] = [];
    for (let i = 0; i < warmup + jobs; i += 1) {
      const taskId = `g${String(i).padStart(3, '0')}`;
      const before = logLines(log).length;
      await env.queue.add({
        ...scriptedAgentJob({
          runId,
          taskId,
          repo,
          base,
          // The sandbox's own start is not git's: off, so the figure does not depend on bwrap being there.
          role: { sandbox: false },
          turns: [
            { tools: [{ name: 'Read', input: { file_path: 'src/note.txt' } }] },
            {
              tools: [{ name: 'Edit', input: { file_path: 'src/note.txt', old_string: 'first line', new_string: `edited by ${taskId}` } }],
            },
            { tools: [{ name: 'Bash', input: { command: 'sh check.sh' } }] },
            reportTurn(`edited src/note.txt in ${taskId}`),
          ],
        }),
        config,
        project,
      });
      const result = await env.result(agentJobId(runId, taskId, 1));
      if (result.status !== 'completed' || !result.commit)
        throw new Error(`git-processes job ${taskId} ended ${result.status} without a commit: ${result.detail}`);
      if (i < warmup) continue;
      const lines = logLines(log).slice(before);
      perJob.push(lines.length);
      const counts: Record<string, number> = {};
      for (const line of lines) counts[subcommandOf(line)] = (counts[subcommandOf(line)] ?? 0) + 1;
      subcommands.push(counts);
    }
    const names = [...new Set(subcommands.flatMap((counts) => Object.keys(counts)))];
    const bySubcommand = names
      .map((name) => [name, round(median(subcommands.map((counts) => counts[name] ?? 0)), 1)] as const)
      .filter(([, count]) => count > 0)
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    return { git_processes_per_job: round(median(perJob), 1), by_subcommand: Object.fromEntries(bySubcommand), per_job: perJob, jobs };
  });
}

/** The real git, by absolute path: the first `git` on PATH (the shim's folder is not on it yet). */
function realGit(): string {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, 'git');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  throw new Error('no git on PATH: the git-processes benchmark counts calls to it');
}

/** One record per process: its arguments after a record separator (an argument, a commit message, may hold newlines). */
function logLines(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\x1e')
    .filter((record) => record !== '')
    .map((record) => record.replace(/\n$/, ''));
}

/** `worktree add`, `rev-parse`, …: git's options before the subcommand (`-c k=v`, `-C dir`) skipped. */
function subcommandOf(line: string): string {
  const words = line.split(' ');
  let i = 0;
  while (i < words.length && words[i]!.startsWith('-')) i += words[i] === '-c' || words[i] === '-C' ? 2 : 1;
  const name = words[i] ?? '(none)';
  const next = words[i + 1];
  // Subcommands with subcommands of their own are told apart by it.
  return ['worktree', 'stash', 'remote', 'sparse-checkout'].includes(name) && next && !next.startsWith('-') ? `${name} ${next}` : name;
}

/** The median per job measured at the merge-base of issue 25's cut (see the comment above). */
export const GIT_PROCESSES_BEFORE = 47;
