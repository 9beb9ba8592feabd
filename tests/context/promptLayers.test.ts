import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createContextAssembler } from '../../shared/context/prompt/assembler.js';
import { staticSystemPrompt } from '../../shared/context/prompt/staticPrompt.js';
import { modeOnlySlots } from '../../shared/core/tool/pipeline.js';
import { OwnedPaths } from '../../shared/policy/permissions/ownedPaths.js';
import { ownedPathsGuard } from '../../shared/policy/permissions/ownedPathsSlots.js';
import { WorktreeWatch } from '../../shared/policy/permissions/worktreeWatch.js';
import { git, makeRepo } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';
import { bash, messagesText, REPORT_TURN, read, runScripted } from './scriptedSession.js';

describe('prompt layers', () => {
  it('keeps the static system bytes identical over 10 turns while git status changes', async () => {
    const repo = makeRepo({ 'README.md': '# demo\n', 'notes.txt': 'start\n' });
    const turns = Array.from({ length: 10 }, (_, index) => bash(`echo "change ${index}" >> notes.txt`));
    const { model, result, session } = await runScripted({
      root: repo,
      turns: [...turns, REPORT_TURN],
      context: createContextAssembler({ homeDir: repo }),
      shellEnv: { PORT: '4100', ORCA_PORTS: '4100,4101' },
    });
    expect(result.reason).toBe('report');
    const requests = model.requests;
    expect(requests.length).toBe(11);

    const statics = requests.map((request) => request.system[0]!);
    for (const block of statics) {
      expect(block.cache).toBe(true);
      expect(block.text).toBe(statics[0]!.text);
    }
    expect(statics[0]!.text).toBe(session.systemPrompt);
    // The dynamic block is taken once, at session start: the same bytes on every turn too.
    const dynamics = requests.map((request) => request.system[1]!);
    for (const block of dynamics) {
      expect(block.cache).toBeUndefined();
      expect(block.text).toBe(dynamics[0]!.text);
    }
    expect(dynamics[0]!.text).toContain(`Working directory: ${session.workspace.root}`);
    expect(dynamics[0]!.text).toContain('Git branch: main');
    expect(dynamics[0]!.text).toContain('(clean)');
    expect(dynamics[0]!.text).toContain('PORT=4100, ORCA_PORTS=4100,4101');

    // Git status did change, and the per-turn reminder (not the system prompt) says so.
    expect(readFileSync(path.join(repo, 'notes.txt'), 'utf8')).toContain('change 9');
    const last = requests.at(-1)!;
    const reminder = last.messages.at(-1)!.content.at(-1)!;
    expect(reminder.type).toBe('text');
    expect(reminder.type === 'text' && reminder.text).toContain('Git status now (changed since the session started)');
    expect(reminder.type === 'text' && reminder.text).toContain(' M notes.txt');
    expect(requests.every((request) => !request.system.some((block) => block.text.includes(' M notes.txt')))).toBe(true);
  });

  it('takes git status again only after a call that may write, or before every call when hooks could write', async () => {
    // Every git the session runs goes through this shim, which counts the `status` calls.
    const shim = tempDir('orca-git-shim-');
    const log = path.join(shim, 'calls.log');
    writeFileSync(
      path.join(shim, 'git'),
      `#!/bin/sh\ncase " $* " in *" status "*) echo status >> '${log}';; esac\nexec ${execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim()} "$@"\n`,
      { mode: 0o755 },
    );
    const statusCalls = () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0);
    const savedPath = process.env.PATH;
    process.env.PATH = `${shim}:${savedPath}`;
    try {
      const run = async (othersMayWrite: boolean) => {
        rmSync(log, { force: true });
        const repo = makeRepo({ 'README.md': '# demo\n', 'notes.txt': 'start\n' });
        const { model } = await runScripted({
          root: repo,
          turns: [read('README.md'), read('notes.txt'), bash('echo more >> notes.txt'), read('README.md'), REPORT_TURN],
          context: createContextAssembler({ homeDir: repo, othersMayWrite }),
        });
        const reminders = model.requests.map((request) =>
          messagesText(request).includes('Git status now (changed since the session started)'),
        );
        return { calls: statusCalls(), reminders };
      };
      // One at the start, one after the Bash that appended: the reads need none.
      const quiet = await run(false);
      expect(quiet.calls).toBe(2);
      // The change is reported from the request after the Bash on.
      expect(quiet.reminders).toEqual([false, false, false, true, true]);
      // With hooks that could write, one before every call after the first.
      const hooked = await run(true);
      expect(hooked.calls).toBe(5);
      expect(hooked.reminders).toEqual(quiet.reminders);
    } finally {
      process.env.PATH = savedPath;
    }
  });

  it("takes the reminder's git status from the watch's look after a writing call: one status per call, not two", async () => {
    const shim = tempDir('orca-git-shim-');
    const log = path.join(shim, 'calls.log');
    // The reminder's own status asks for `--untracked-files=normal`; the watch's for `all`.
    writeFileSync(
      path.join(shim, 'git'),
      `#!/bin/sh\ncase " $* " in *" status "*) echo "$*" >> '${log}';; esac\nexec ${execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim()} "$@"\n`,
      { mode: 0o755 },
    );
    const statuses = (mode: string) =>
      existsSync(log)
        ? readFileSync(log, 'utf8')
            .split('\n')
            .filter((line) => line.includes(`--untracked-files=${mode}`)).length
        : 0;
    const savedPath = process.env.PATH;
    process.env.PATH = `${shim}:${savedPath}`;
    try {
      const repo = makeRepo({ 'README.md': '# demo\n', 'notes.txt': 'start\n' });
      const start = git(repo, 'rev-parse', 'HEAD');
      const watch = await WorktreeWatch.open({ root: repo, start, owned: new OwnedPaths(undefined), linked: [] });
      const guard = ownedPathsGuard(new OwnedPaths(undefined), watch, start);
      const { model } = await runScripted({
        root: repo,
        turns: [read('README.md'), bash('echo more >> notes.txt'), read('README.md'), bash('echo again >> notes.txt'), REPORT_TURN],
        context: createContextAssembler({ homeDir: repo, lastWorktreeLook: () => guard.lastStatus() }),
        slots: guard.wrap(modeOnlySlots),
      });
      const said = model.requests.map((request) => messagesText(request));
      expect(said.map((text) => text.includes('Git status now (changed since the session started)'))).toEqual([
        false,
        false,
        true,
        true,
        true,
      ]);
      expect(said[2]).toContain(' M notes.txt');
      // The session's start snapshot alone is the reminder's own; the watch looked at its start and after each Bash.
      expect(statuses('normal')).toBe(1);
      expect(statuses('all')).toBe(3);
    } finally {
      process.env.PATH = savedPath;
    }
  });

  it('gives two sessions of the same role the same static prompt, in different repositories', async () => {
    const first = makeRepo({ 'CLAUDE.md': 'Project one rules.\n' });
    const second = makeRepo({ 'CLAUDE.md': 'Project two rules.\n', 'extra.txt': 'x\n' });
    const runA = await runScripted({ root: first, turns: [REPORT_TURN], context: createContextAssembler({ homeDir: first }) });
    const runB = await runScripted({ root: second, turns: [REPORT_TURN], context: createContextAssembler({ homeDir: second }) });
    expect(runA.model.requests[0]!.system[0]!.text).toBe(runB.model.requests[0]!.system[0]!.text);
    expect(runA.model.requests[0]!.system[1]!.text).not.toBe(runB.model.requests[0]!.system[1]!.text);
    // Project instructions are never in the static part.
    expect(runA.model.requests[0]!.system.map((block) => block.text).join('\n')).not.toContain('Project one rules.');
    expect(messagesText(runA.model.requests[0]!)).toContain('Project one rules.');
    expect(staticSystemPrompt('x')).toContain('# Your role\n\nx');
  });

  it('marks at most four cache breakpoints, on a view: the stored transcript is never marked', async () => {
    const repo = makeRepo();
    const { model, session } = await runScripted({
      root: repo,
      turns: [bash('echo one'), bash('echo two'), bash('echo three'), REPORT_TURN],
      context: createContextAssembler({ homeDir: repo }),
    });
    for (const request of model.requests) {
      const marked = request.messages
        .flatMap((message) => message.content)
        .filter((block) => 'cache_control' in block && block.cache_control);
      const breakpoints = marked.length + request.system.filter((block) => block.cache).length + (request.cacheTools ? 1 : 0);
      expect(breakpoints).toBeLessThanOrEqual(4);
      expect(request.cacheTools).toBe(true);
      // The last block of the last message is always marked.
      const lastBlock = request.messages.at(-1)!.content.at(-1)!;
      expect('cache_control' in lastBlock && lastBlock.cache_control).toEqual({ type: 'ephemeral' });
    }
    const stored = JSON.stringify(session.messages);
    expect(stored).not.toContain('cache_control');
    expect(stored).not.toContain('system-reminder');
  });

  it('lets the prompt cache read almost all of each request after the first', async () => {
    const repo = makeRepo();
    const turns = Array.from({ length: 8 }, (_, index) => bash(`echo ${'line '.repeat(50)}${index}`));
    const { events } = await runScripted({
      root: repo,
      turns: [...turns, REPORT_TURN],
      context: createContextAssembler({ homeDir: repo }),
    });
    const usages = events.flatMap((event) => (event.type === 'usage' ? [event.usage] : []));
    for (const usage of usages.slice(1)) {
      const input = usage.input_tokens + usage.cache_read_tokens + usage.cache_creation_tokens;
      expect(usage.cache_read_tokens / input).toBeGreaterThan(0.8);
    }
  });
});
