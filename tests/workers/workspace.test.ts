import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashBytes } from '../../shared/core/files/readFileState.js';
import { agentJobId } from '../../shared/infra/queue/agentQueue.js';
import { commitFiles, git } from '../support/gitRepo.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { reportTurn, scriptedJob, testRunId, toolOutcomes, toolTurn } from '../support/scriptedJobs.js';

/**
 * Where a job's agent works: at the base the job names, never in the user's checkout, with the
 * parent's file state rebased onto its worktree. One worker process serves the whole file; each
 * test has its own repository and run.
 */
let orca: OrcaTestEnv;

beforeAll(async () => {
  orca = await OrcaTestEnv.open({ shared: true });
  await orca.startWorker({ concurrency: 4 });
});

afterAll(async () => {
  await orca?.close();
});

function repoWith(name: string, files: Record<string, string>): { repo: string; base: string } {
  const repo = orca.dir(name);
  git(repo, 'init', '-q', '-b', 'main');
  const base = commitFiles(repo, files, 'initial');
  return { repo, base };
}

describe('a worker job', { timeout: SLOW_TEST_MS }, () => {
  it('gets a worktree at the base the job names, not at HEAD', async () => {
    const { repo, base } = repoWith('base-repo', { 'a.txt': 'old\n' });
    const head = commitFiles(repo, { 'a.txt': 'new\n', 'later.txt': 'later\n' }, 'moves HEAD on');
    const runId = testRunId('base');
    await orca.queue.add(
      scriptedJob({
        runId,
        taskId: 't1',
        repo: { path: repo },
        base,
        turns: [
          toolTurn('Bash', { command: 'git rev-parse HEAD > seen-head.txt; cat a.txt > seen-a.txt; ls > seen-ls.txt' }),
          reportTurn('recorded what the worktree holds'),
        ],
      }),
    );
    const result = await orca.result(agentJobId(runId, 't1', 1));
    expect(result.status).toBe('completed');
    expect(result.base).toBe(base);
    // Each step of its end stamped, in order, for the benchmarks' split (bench/jobEndPhases.ts).
    const { session, judged, committed, published } = result.end_steps ?? {};
    expect([session, judged, committed, published].every((at) => typeof at === 'number')).toBe(true);
    expect(session! <= judged! && judged! <= committed! && committed! <= published!).toBe(true);
    const branch = `orca/${runId}/t1`;
    expect(result.branch).toBe(branch);
    // The commit sits right on the named base, and the agent saw the base's tree.
    expect(git(repo, 'rev-parse', `${branch}^`)).toBe(base);
    expect(git(repo, 'show', `${branch}:seen-head.txt`)).toBe(base);
    expect(git(repo, 'show', `${branch}:seen-a.txt`)).toBe('old');
    expect(git(repo, 'show', `${branch}:seen-ls.txt`)).not.toContain('later.txt');
    // The user's checkout did not move.
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });

  it('cannot write the main checkout, whatever it tries', async () => {
    const { repo, base } = repoWith('main-checkout', { 'README.md': '# main\n', 'src/a.txt': 'a\n' });
    const before = snapshot(repo);
    const runId = testRunId('escape');
    const worktree = path.join(orca.home, 'worktrees', runId, 'sandboxed');
    const escapePath = path.relative(worktree, repo);
    const fileTools = [
      toolTurn('Read', { file_path: path.join(repo, 'README.md') }),
      toolTurn('Edit', { file_path: path.join(repo, 'README.md'), old_string: '# main', new_string: '# owned' }),
      toolTurn('Write', { file_path: path.join(repo, 'evil-abs.txt'), content: 'x' }),
      toolTurn('Write', { file_path: `${escapePath}/evil-rel.txt`, content: 'x' }),
      toolTurn('Write', { file_path: '../../../../../../../../../../../../tmp/orca-evil-root.txt', content: 'x' }),
      // A link made inside the worktree still leads to the main checkout once resolved.
      toolTurn('Bash', { command: `ln -s ${repo} into-main` }),
      toolTurn('Write', { file_path: 'into-main/evil-link.txt', content: 'x' }),
      toolTurn('Edit', { file_path: 'into-main/README.md', old_string: '# main', new_string: '# owned' }),
    ];
    const redirects = [`echo x > ${repo}/evil-redirect.txt`, `echo x >> ${escapePath}/README.md`, `cd ${repo} && echo x > evil-cd.txt`];
    const commands = [
      `cp README.md ${repo}/evil-cp.txt`,
      `cd ${repo} && touch evil-touch.txt`,
      `git -C ${repo} commit --allow-empty -qm evil`,
    ];
    const bash = (list: string[]) => list.map((command) => toolTurn('Bash', { command }));
    // The worker role as shipped runs its shell in the bwrap sandbox, where the host is read-only
    // but for the worktree (a command naming a path under /tmp reaches the sandbox's private one).
    // Required: without a working bwrap the job is refused, so these commands never run unsandboxed.
    await orca.queue.add({
      ...scriptedJob({
        runId,
        taskId: 'sandboxed',
        repo: { path: repo },
        base,
        turns: [...fileTools, ...bash(redirects), ...bash(commands), reportTurn()],
      }),
      sandbox: 'required',
    });
    // Without the sandbox the permission checks alone refuse the file tools and the redirections.
    await orca.queue.add(
      scriptedJob({
        runId,
        taskId: 'unsandboxed',
        repo: { path: repo },
        base,
        role: { sandbox: false },
        turns: [...fileTools, ...bash(redirects), reportTurn()],
      }),
    );
    for (const taskId of ['sandboxed', 'unsandboxed']) {
      const result = await orca.result(agentJobId(runId, taskId, 1));
      expect(result.status).toBe('completed');
      const outcomes = await toolOutcomes(orca.redis, orca.keys, runId, taskId);
      expect(outcomes.map((o) => o.name)).toEqual(
        [...fileTools, ...bash(redirects), ...(taskId === 'sandboxed' ? bash(commands) : []), reportTurn()].map(
          (turn) => turn.tools![0]!.name,
        ),
      );
      // The link into the main checkout never stays: refused by its words without the sandbox, removed by the
      // host's look after the call with it. A Write through its name then makes a plain folder in the worktree.
      const refused = outcomes.filter(
        (o) =>
          (o.name !== 'Bash' || taskId === 'unsandboxed') &&
          o.name !== 'Report' &&
          !String(o.input.command ?? '').startsWith('ln -s') &&
          o.input.file_path !== 'into-main/evil-link.txt',
      );
      for (const attempt of refused) {
        expect(attempt.isError, `${taskId}: ${attempt.name} ${JSON.stringify(attempt.input)} was not refused: ${attempt.preview}`).toBe(
          true,
        );
      }
    }
    expect(snapshot(repo)).toEqual(before);
    expect(existsSync('/tmp/orca-evil-root.txt')).toBe(false);
  });

  it('fails a bad payload naming the field, and does not retry it', async () => {
    const { repo, base } = repoWith('bad-payload', { 'a.txt': 'a\n' });
    const runId = testRunId('bad');
    const good = scriptedJob({ runId, taskId: 't1', repo: { path: repo }, base, turns: [reportTurn()] });
    // Straight onto the queue, past AgentQueue.add's check, as a worker on another version might.
    // Three attempts allowed: only an unrecoverable failure stops it after the first.
    const job = await orca.queue.queue.add('bad', { ...good, base: 'not-a-sha' } as never, { attempts: 3, jobId: 'bad-1' });
    await expect(orca.result(String(job.id))).rejects.toThrow(/base: must be a full 40-character commit sha/);
    const failed = await orca.queue.getJob('bad-1');
    expect(await failed!.getState()).toBe('failed');
    expect(failed!.attemptsMade).toBe(1);
    expect(failed!.failedReason).toMatch(/agent job payload is invalid: base:/);
    // Nothing was prepared for it.
    expect(existsSync(path.join(orca.home, 'worktrees', runId))).toBe(false);
  });

  it('inherits the parent file state: Edit works without a Read, a whole-file Write does not', async () => {
    const { repo, base } = repoWith('file-state', { 'known.txt': 'alpha\nbeta\n', 'changed.txt': 'one\n' });
    const runId = testRunId('state');
    await orca.queue.add(
      scriptedJob({
        runId,
        taskId: 't1',
        repo: { path: repo },
        base,
        fileState: [
          { path: 'known.txt', hash: hashBytes('alpha\nbeta\n'), partial: false },
          // The parent saw other bytes than the worktree holds: this entry does not survive.
          { path: 'changed.txt', hash: hashBytes('what the parent saw\n'), partial: false },
        ],
        turns: [
          // Before any write of its own: after the Edit the agent knows the whole file it wrote.
          toolTurn('Write', { file_path: 'known.txt', content: 'overwritten\n' }),
          toolTurn('Edit', { file_path: 'known.txt', old_string: 'beta', new_string: 'gamma' }),
          toolTurn('Edit', { file_path: 'changed.txt', old_string: 'one', new_string: 'two' }),
          reportTurn('edited with inherited state'),
        ],
      }),
    );
    const result = await orca.result(agentJobId(runId, 't1', 1));
    expect(result.status).toBe('completed');
    const [write, edit, staleEdit] = await toolOutcomes(orca.redis, orca.keys, runId, 't1');
    expect(edit).toMatchObject({ name: 'Edit', isError: false });
    expect(write).toMatchObject({ name: 'Write', isError: true });
    expect(staleEdit).toMatchObject({ name: 'Edit', isError: true });
    expect(git(repo, 'show', `orca/${runId}/t1:known.txt`)).toBe('alpha\ngamma');
    expect(git(repo, 'show', `orca/${runId}/t1:changed.txt`)).toBe('one');
    expect(result.files_changed).toEqual(['known.txt']);
    // Nothing the child did reached the parent's checkout.
    expect(readFileSync(path.join(repo, 'known.txt'), 'utf8')).toBe('alpha\nbeta\n');
  });
});

/** The checkout as the user sees it: HEAD, refs, status, every file and its bytes (outside .git). */
function snapshot(repo: string): { head: string; refs: string; status: string; files: Record<string, string> } {
  const files: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === '.git') continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else files[path.relative(repo, full)] = readFileSync(full, 'utf8');
    }
  };
  walk(repo);
  // orca's own task branches are expected; anything else under refs/ is not.
  const refs = git(repo, 'for-each-ref', '--format=%(refname) %(objectname)')
    .split('\n')
    .filter((line) => !line.startsWith('refs/heads/orca/'))
    .join('\n');
  return { head: git(repo, 'rev-parse', 'HEAD'), refs, status: git(repo, 'status', '--porcelain'), files };
}
