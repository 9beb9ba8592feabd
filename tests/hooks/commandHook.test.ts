import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { runHooks } from '../../shared/policy/hooks/hookRunner.js';
import { tempDir } from '../support/tempDir.js';
import { exitHook, fixture, hookEvents, hooksOf, recorded, respondHook, shellQuote, testHookContext } from './hookTestKit.js';

const preToolUse = { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'toolu_1' };
const postToolUse = { ...preToolUse, tool_response: 'a\nb' };

/** Members of a process group that are still running (zombies left to a non-reaping init are not). */
function runningInGroup(pgid: number): string[] {
  const table = execFileSync('ps', ['-e', '-o', 'pid=,pgid=,stat=']).toString();
  return table
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, group, stat]) => Number(group) === pgid && stat !== undefined && !stat.startsWith('Z'))
    .map(([pid]) => pid!);
}

async function waitForGroupToEnd(pgid: number): Promise<string[]> {
  for (let i = 0; i < 100; i += 1) {
    const members = runningInGroup(pgid);
    if (members.length === 0) return members;
    await sleep(50);
  }
  return runningInGroup(pgid);
}

describe('command hooks: input, environment and working directory', () => {
  it('gives a node hook the event JSON on stdin, CLAUDE_PROJECT_DIR and the ORCA_ variables, in the project folder', async () => {
    const dir = tempDir();
    const record = path.join(dir, 'runs.jsonl');
    const context = testHookContext({ env: { ORCA_RUN_ID: 'run-7', ORCA_TASK_ID: 't3' }, mode: 'read-only', role: 'explore' });
    const command = respondHook(dir, { record, env: ['CLAUDE_PROJECT_DIR', 'ORCA_RUN_ID', 'ORCA_TASK_ID', 'ORCA_ROLE'] });
    await runHooks(
      hooksOf({ PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command }] }] }),
      'PreToolUse',
      preToolUse,
      context,
    );

    const [run] = recorded(record);
    expect(run!.input).toEqual({
      session_id: 'session-1',
      transcript_path: context.transcriptPath,
      cwd: context.projectDir,
      permission_mode: 'plan',
      orca_permission_mode: 'read-only',
      hook_event_name: 'PreToolUse',
      agent_type: 'explore',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_use_id: 'toolu_1',
    });
    expect(run!.env).toEqual({ CLAUDE_PROJECT_DIR: context.projectDir, ORCA_RUN_ID: 'run-7', ORCA_TASK_ID: 't3', ORCA_ROLE: 'explore' });
    expect(run!.cwd).toBe(context.projectDir);
  });

  it('runs `command` with `args` without a shell, expanding ${CLAUDE_PROJECT_DIR} in the arguments', async () => {
    const context = testHookContext();
    const record = path.join(context.projectDir, 'runs.jsonl');
    const specFile = path.join(context.projectDir, 'spec.json');
    writeFileSync(specFile, JSON.stringify({ record }));
    const hooks = hooksOf({
      SessionStart: [{ hooks: [{ type: 'command', command: 'node', args: [fixture('respond.mjs'), '${CLAUDE_PROJECT_DIR}/spec.json'] }] }],
    });
    const outcome = await runHooks(hooks, 'SessionStart', { source: 'startup' }, context);
    expect(outcome.results.map((r) => r.outcome)).toEqual(['ok']);
    expect(recorded(record)[0]!.input.source).toBe('startup');
  });
});

describe('command hooks: exit codes', () => {
  it('exit 0 with plain stdout goes on; the text is logged, not given to the model, for a tool event', async () => {
    const context = testHookContext();
    const outcome = await runHooks(
      hooksOf({ PreToolUse: [{ hooks: [{ type: 'command', command: 'echo checked' }] }] }),
      'PreToolUse',
      preToolUse,
      context,
    );
    expect(outcome).toMatchObject({ blocked: false, additionalContext: [] });
    expect(outcome.decision).toBeUndefined();
    expect(hookEvents(context.events)).toEqual([
      { type: 'hook', event: 'PreToolUse', command: 'echo checked', outcome: 'ok', exit_code: 0, detail: 'stdout: checked' },
    ]);
  });

  it('exit 0 with plain stdout is context for the model on UserPromptSubmit and SessionStart', async () => {
    const hooks = hooksOf({
      UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'echo "the sprint goal is X"' }] }],
      SessionStart: [{ matcher: 'startup', hooks: [{ type: 'command', command: 'echo "branch: main"' }] }],
    });
    const prompt = await runHooks(hooks, 'UserPromptSubmit', { prompt: 'go' }, testHookContext());
    const start = await runHooks(hooks, 'SessionStart', { source: 'startup' }, testHookContext());
    expect(prompt.additionalContext).toEqual(['the sprint goal is X']);
    expect(start.additionalContext).toEqual(['branch: main']);
  });

  it('exit 2 on PreToolUse blocks, and stderr is the reason the model reads', async () => {
    const context = testHookContext();
    const command = exitHook(2, 'no ls today', '{"hookSpecificOutput":{"permissionDecision":"allow"}}');
    const outcome = await runHooks(hooksOf({ PreToolUse: [{ hooks: [{ type: 'command', command }] }] }), 'PreToolUse', preToolUse, context);
    // stdout JSON is read on exit 0 only: the allow printed with exit 2 counts for nothing.
    expect(outcome).toMatchObject({ blocked: true, reason: 'no ls today', decision: 'deny', decisionReason: 'no ls today' });
    expect(hookEvents(context.events)).toMatchObject([{ outcome: 'block', exit_code: 2, detail: 'stderr: no ls today' }]);
  });

  it('exit 2 on PostToolUse cannot undo the call: stderr becomes feedback for the model', async () => {
    const outcome = await runHooks(
      hooksOf({ PostToolUse: [{ hooks: [{ type: 'command', command: exitHook(2, 'lint: 3 errors') }] }] }),
      'PostToolUse',
      postToolUse,
      testHookContext(),
    );
    expect(outcome).toMatchObject({ blocked: false, feedback: 'lint: 3 errors' });
  });

  it('exit 2 on an event that cannot block is logged as an error and changes nothing', async () => {
    const context = testHookContext();
    const outcome = await runHooks(
      hooksOf({ SessionStart: [{ hooks: [{ type: 'command', command: exitHook(2, 'nope') }] }] }),
      'SessionStart',
      { source: 'startup' },
      context,
    );
    expect(outcome).toMatchObject({ blocked: false, additionalContext: [] });
    expect(outcome.feedback).toBeUndefined();
    expect(hookEvents(context.events)).toMatchObject([
      { outcome: 'error', exit_code: 2, detail: 'exit code 2 cannot block SessionStart | stderr: nope' },
    ]);
  });

  it.each([1, 3, 127])('exit %i is a non-blocking error: logged with stderr, not shown to the model', async (code) => {
    const context = testHookContext();
    const outcome = await runHooks(
      hooksOf({ PreToolUse: [{ hooks: [{ type: 'command', command: exitHook(code, 'it broke', 'some output') }] }] }),
      'PreToolUse',
      preToolUse,
      context,
    );
    expect(outcome).toMatchObject({ blocked: false, additionalContext: [] });
    expect(outcome.decision).toBeUndefined();
    expect(outcome.feedback).toBeUndefined();
    expect(hookEvents(context.events)).toEqual([
      expect.objectContaining({
        outcome: 'error',
        exit_code: code,
        detail: `exited with code ${code} | stderr: it broke | stdout: some output`,
      }),
    ]);
  });

  it('a missing script (exit 127 from bash) does not block, and the event says so', async () => {
    const context = testHookContext();
    const outcome = await runHooks(
      hooksOf({ PreToolUse: [{ hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/missing.sh' }] }] }),
      'PreToolUse',
      preToolUse,
      context,
    );
    expect(outcome.blocked).toBe(false);
    expect(hookEvents(context.events)[0]).toMatchObject({ outcome: 'error', exit_code: 127 });
    expect(hookEvents(context.events)[0]!.detail).toContain('No such file or directory');
  });

  it('with onFailure "block", a failing PreToolUse hook blocks instead of letting the call through', async () => {
    const outcome = await runHooks(
      hooksOf({ PreToolUse: [{ hooks: [{ type: 'command', command: exitHook(1, 'crashed'), onFailure: 'block' }] }] }),
      'PreToolUse',
      preToolUse,
      testHookContext(),
    );
    expect(outcome.blocked).toBe(true);
    expect(outcome.reason).toContain('crashed');
    expect(outcome.reason).toContain('exited with code 1');
  });

  it('WorktreeCreate: any failure blocks, and a success prints the worktree path', async () => {
    const failed = await runHooks(
      hooksOf({ WorktreeCreate: [{ hooks: [{ type: 'command', command: exitHook(1, 'disk full') }] }] }),
      'WorktreeCreate',
      { name: 'w1' },
      testHookContext(),
    );
    expect(failed.blocked).toBe(true);
    const made = await runHooks(
      hooksOf({ WorktreeCreate: [{ hooks: [{ type: 'command', command: 'echo /tmp/wt/w1' }] }] }),
      'WorktreeCreate',
      { name: 'w1' },
      testHookContext(),
    );
    expect(made).toMatchObject({ blocked: false, worktreePath: '/tmp/wt/w1' });
  });
});

describe('command hooks: timeouts and aborts', () => {
  it('kills a hook that sleeps past its timeout, with its whole process group, and counts it as a non-blocking error', async () => {
    const context = testHookContext();
    const pgidFile = path.join(context.projectDir, 'pgid');
    const command = `bash ${shellQuote(fixture('sleep-past-timeout.sh'))} ${shellQuote(pgidFile)}`;
    const outcome = await runHooks(
      // 3 s: time for bash to start and write the group id under load; the kill is what is checked.
      hooksOf({ PreToolUse: [{ hooks: [{ type: 'command', command, timeout: 3 }] }] }),
      'PreToolUse',
      preToolUse,
      context,
    );

    expect(outcome.blocked).toBe(false);
    expect(hookEvents(context.events)).toMatchObject([
      { outcome: 'timeout', exit_code: null, detail: 'timed out after 3 s; its process group was killed' },
    ]);
    const pgid = Number(readFileSync(pgidFile, 'utf8'));
    expect(pgid).toBeGreaterThan(1);
    expect(await waitForGroupToEnd(pgid)).toEqual([]);
  });

  it('stops what a hook left running in the background once it is done, its answer kept', async () => {
    const context = testHookContext();
    const pgidFile = path.join(context.projectDir, 'pgid');
    // Its own output closed, so the leftover sleep does not hold the hook's pipes open.
    const command = `ps -o pgid= -p $$ > ${shellQuote(pgidFile)}; sleep 600.301 >/dev/null 2>&1 & echo "context from the hook"`;
    const outcome = await runHooks(
      hooksOf({ SessionStart: [{ hooks: [{ type: 'command', command }] }] }),
      'SessionStart',
      { source: 'startup' },
      context,
    );

    expect(outcome.additionalContext).toEqual(['context from the hook']);
    expect(hookEvents(context.events)).toMatchObject([{ outcome: 'ok', exit_code: 0 }]);
    expect(runningInGroup(Number(readFileSync(pgidFile, 'utf8')))).toEqual([]);
  });

  it('kills running hooks when the session is aborted', async () => {
    const controller = new AbortController();
    const context = testHookContext({ signal: controller.signal });
    const pgidFile = path.join(context.projectDir, 'pgid');
    const command = `bash ${shellQuote(fixture('sleep-past-timeout.sh'))} ${shellQuote(pgidFile)}`;
    const running = runHooks(hooksOf({ Stop: [{ hooks: [{ type: 'command', command }] }] }), 'Stop', { stop_hook_active: false }, context);
    // Written by one echo: wait until it holds the id, not only until it exists.
    for (let i = 0; i < 400 && !(existsSync(pgidFile) && readFileSync(pgidFile, 'utf8').trim()); i += 1) await sleep(25);
    controller.abort();
    const outcome = await running;
    expect(outcome.blocked).toBe(false);
    expect(hookEvents(context.events)[0]).toMatchObject({ outcome: 'error', detail: 'the hook was killed: the session was aborted' });
    const pgid = Number(readFileSync(pgidFile, 'utf8'));
    expect(pgid).toBeGreaterThan(1);
    expect(await waitForGroupToEnd(pgid)).toEqual([]);
  });
});

describe('command hooks: running several', () => {
  it('runs the matching hooks of an event in parallel', async () => {
    // Each hook waits for the file the other creates: they can only finish if both run at once.
    const dir = tempDir();
    const a = path.join(dir, 'a');
    const b = path.join(dir, 'b');
    const hooks = hooksOf({
      PreToolUse: [
        { matcher: 'Bash', hooks: [{ type: 'command', command: respondHook(dir, { create: a, wait_for: b }), timeout: 20 }] },
        { hooks: [{ type: 'command', command: respondHook(dir, { create: b, wait_for: a }), timeout: 20 }] },
      ],
    });
    const context = testHookContext();
    await runHooks(hooks, 'PreToolUse', preToolUse, context);
    expect(hookEvents(context.events).map((e) => e.outcome)).toEqual(['ok', 'ok']);
  });

  it('runs a hook named in several matching groups once', async () => {
    const dir = tempDir();
    const record = path.join(dir, 'runs.jsonl');
    const command = respondHook(dir, { record });
    const hooks = hooksOf({
      PreToolUse: [
        { matcher: 'Bash', hooks: [{ type: 'command', command }] },
        { matcher: '*', hooks: [{ type: 'command', command }] },
      ],
    });
    await runHooks(hooks, 'PreToolUse', preToolUse, testHookContext());
    expect(recorded(record)).toHaveLength(1);
  });
});
