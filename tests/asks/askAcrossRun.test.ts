import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunStreamEntry } from '../../shared/core/events/runStreamEntry.js';
import { packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { answerRequest } from '../../shared/infra/asks/answerRequest.js';
import { readRunBoard } from '../../shared/infra/board/readBoard.js';
import { agentJobId } from '../../shared/infra/queue/agentQueue.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { reportTurn, scriptedJob, testRunId, toolOutcomes, toolTurn } from '../support/scriptedJobs.js';
import {
  ASK_RULE,
  type AskRepo,
  agentEnv,
  askRepo,
  pendingAsk,
  permissionRequestHook,
  publishedCommands,
  streamEntries,
  transcriptEvents,
} from './asksKit.js';

const RESPOND = path.join(packageRoot(), 'tests', 'fixtures', 'hooks', 'respond.mjs');
const USER = `${os.userInfo().username}@${os.hostname()}`;

/** A worker job whose agent runs `command` (which the project's rule asks about), then reports. */
function publishJob(setup: AskRepo, runId: string, taskId: string, command: string, asks?: { timeout_ms?: number; yes_to?: string[] }) {
  return {
    ...scriptedJob({
      runId,
      taskId,
      repo: { path: setup.repo },
      base: setup.base,
      role: { sandbox: false },
      env: agentEnv(setup),
      turns: [toolTurn('Bash', { command }), reportTurn('tried to publish')],
    }),
    asks: { timeout_ms: asks?.timeout_ms ?? 600_000, yes_to: asks?.yes_to ?? [] },
  };
}

function bashDecisions(entries: RunStreamEntry[]): Array<Record<string, unknown>> {
  return entries.filter((entry) => entry.event.type === 'permission' && entry.event.tool === 'Bash').map((entry) => entry.event);
}

describe('asking the user from a worker, over the run', { timeout: SLOW_TEST_MS }, () => {
  it('orca allow from another process answers a pending request: the command runs and the transcript names who allowed it', async () => {
    const orca = await OrcaTestEnv.open();
    const setup = askRepo(orca);
    await orca.startWorker();
    const runId = testRunId('allow');
    await orca.queue.add(publishJob(setup, runId, 't1', 'npm publish --tag next'));

    const ask = await pendingAsk(orca, runId, 't1');
    expect(ask).toMatchObject({
      task_id: 't1',
      role: 'worker',
      tool: 'Bash',
      input: { command: 'npm publish --tag next' },
      summary: 'npm publish --tag next',
      by: `ask:${ASK_RULE} in .claude/settings.json`,
      suggestion: [ASK_RULE],
    });
    expect(ask.reason).toBe(`the rule ${ASK_RULE} in .claude/settings.json asks before \`npm publish --tag next\``);
    expect(ask.cwd).toMatch(new RegExp(`${runId}`));
    expect(ask.expires_at).toBeGreaterThan(ask.at);
    expect(publishedCommands(setup)).toEqual([]);

    // `orca status --json` lists it under asks, as any host would see it.
    const status = await orca.cli(['status', runId, '--json']);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout).asks).toEqual([expect.objectContaining({ id: ask.id, task_id: 't1', tool: 'Bash' })]);

    const allow = await orca.cli(['allow', runId]);
    expect(allow.code, allow.stderr).toBe(0);
    expect(allow.stdout).toBe(`orca: request ${ask.id} of run ${runId} (t1: Bash npm publish --tag next) allowed\n`);

    const result = await orca.result(agentJobId(runId, 't1', 1));
    expect(result.status).toBe('completed');
    expect(publishedCommands(setup)).toEqual(['npm publish --tag next']);
    const [publish] = await toolOutcomes(orca.redis, orca.keys, runId, 't1');
    expect(publish).toMatchObject({ name: 'Bash', isError: false });

    // The transcript: the question with its id, then who allowed it, how, and when.
    const events = transcriptEvents(result.transcript);
    const asked = events.find((event) => event.type === 'permission_request');
    expect(asked).toMatchObject({ id: ask.id, tool: 'Bash', summary: 'npm publish --tag next' });
    const answered = events.find((event) => event.type === 'permission' && event.request_id === ask.id);
    expect(answered).toMatchObject({
      decision: 'allow',
      by: USER,
      via: 'command',
      reason: `allowed by ${USER} with orca allow`,
    });
    expect(answered!.at).toBeGreaterThanOrEqual(asked!.at);
    const order = events.map((event) => event.type);
    expect(order.indexOf('permission_request')).toBeLessThan(order.lastIndexOf('tool_result'));

    // The run's events hold the answer, and the board no longer lists the request as pending.
    const answers = (await streamEntries(orca, runId)).filter((entry) => entry.event.type === 'permission_answer');
    expect(answers).toEqual([
      expect.objectContaining({
        source: 'run',
        task_id: 't1',
        event: expect.objectContaining({ request_id: ask.id, allowed: true, via: 'command' }),
      }),
    ]);
    const board = await readRunBoard(orca.redis, orca.keys, runId);
    expect(board!.asks).toEqual([]);
    expect(board!.answered).toEqual([
      expect.objectContaining({ id: ask.id, answer: expect.objectContaining({ allowed: true, by: USER }) }),
    ]);

    // A second answer to it now changes nothing, and says so.
    const late = await orca.cli(['deny', runId, ask.id]);
    expect(late.code).toBe(2);
    expect(late.stderr).toBe(`orca: request ${ask.id} of run ${runId} was already answered: ${USER} (command): allowed.\n`);
  });

  it('orca deny --reason: the model is told the refusal with the reason, and the agent goes on', async () => {
    const orca = await OrcaTestEnv.open();
    const setup = askRepo(orca);
    await orca.startWorker();
    const runId = testRunId('deny');
    await orca.queue.add(publishJob(setup, runId, 't1', 'npm publish'));
    const ask = await pendingAsk(orca, runId);

    const deny = await orca.cli(['deny', runId, ask.id, '--reason', 'not today']);
    expect(deny.code, deny.stderr).toBe(0);
    expect(deny.stdout).toContain(`request ${ask.id} of run ${runId} (t1: Bash npm publish) denied`);

    const result = await orca.result(agentJobId(runId, 't1', 1));
    expect(result.status).toBe('completed');
    expect(publishedCommands(setup)).toEqual([]);
    const [publish] = await toolOutcomes(orca.redis, orca.keys, runId, 't1');
    expect(publish!.isError).toBe(true);
    expect(publish!.preview).toBe(`Permission to use Bash was denied: denied by ${USER} with orca deny: not today`);
  });

  it('no answer within --ask-timeout: denied with the timeout reason, and the agent goes on', async () => {
    const orca = await OrcaTestEnv.open();
    const setup = askRepo(orca);
    await orca.startWorker();
    const runId = testRunId('timeout');
    await orca.queue.add(publishJob(setup, runId, 't1', 'npm publish', { timeout_ms: 2_000 }));

    const result = await orca.result(agentJobId(runId, 't1', 1));
    expect(result.status).toBe('completed');
    expect(publishedCommands(setup)).toEqual([]);
    const [publish] = await toolOutcomes(orca.redis, orca.keys, runId, 't1');
    expect(publish!.isError).toBe(true);
    expect(publish!.preview).toBe(
      `Permission to use Bash was denied: the rule ${ASK_RULE} in .claude/settings.json asks before \`npm publish\`; refused: no answer within 2s`,
    );
    // The worker's own answer is on the run's stream like anyone's, so the board has nothing pending.
    const answers = (await streamEntries(orca, runId)).filter((entry) => entry.event.type === 'permission_answer');
    expect(answers.map((entry) => entry.event)).toEqual([expect.objectContaining({ allowed: false, via: 'timeout' })]);
    expect((await readRunBoard(orca.redis, orca.keys, runId))!.asks).toEqual([]);
  });

  it('--ask-timeout 0 denies at once, asking nobody', async () => {
    const orca = await OrcaTestEnv.open();
    const setup = askRepo(orca);
    await orca.startWorker();
    const runId = testRunId('at-once');
    await orca.queue.add(publishJob(setup, runId, 't1', 'npm publish', { timeout_ms: 0 }));

    const result = await orca.result(agentJobId(runId, 't1', 1));
    expect(result.status).toBe('completed');
    const [publish] = await toolOutcomes(orca.redis, orca.keys, runId, 't1');
    expect(publish!.preview).toMatch(/refused: this run denies every request at once \(--ask-timeout 0\)$/);
    expect((await streamEntries(orca, runId)).filter((entry) => entry.event.type === 'permission_request')).toEqual([]);
  });

  it('a PermissionRequest hook that allows answers before anyone is asked', async () => {
    const orca = await OrcaTestEnv.open();
    const hook = permissionRequestHook(orca, RESPOND, {
      stdout: { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } },
    });
    const setup = askRepo(orca, hook.settings);
    await orca.startWorker();
    const runId = testRunId('hook');
    await orca.queue.add(publishJob(setup, runId, 't1', 'npm publish --dry-run'));

    const result = await orca.result(agentJobId(runId, 't1', 1));
    expect(result.status).toBe('completed');
    expect(publishedCommands(setup)).toEqual(['npm publish --dry-run']);
    // Nobody was asked: no request on the run's stream.
    const entries = await streamEntries(orca, runId);
    expect(entries.filter((entry) => entry.event.type === 'permission_request')).toEqual([]);
    const decisions = entries
      .filter((entry) => entry.event.type === 'permission' && entry.event.tool === 'Bash')
      .map((entry) => entry.event);
    expect(decisions).toEqual([
      expect.objectContaining({ decision: 'ask', by: `ask:${ASK_RULE} in .claude/settings.json` }),
      expect.objectContaining({ decision: 'allow', by: expect.stringMatching(/^hook:PermissionRequest node /) }),
    ]);

    // The hook read Claude Code's input: the call and the "always allow" option, without tool_use_id.
    const [call] = readFileSync(hook.record, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).input);
    expect(call).toMatchObject({
      hook_event_name: 'PermissionRequest',
      tool_name: 'Bash',
      tool_input: { command: 'npm publish --dry-run' },
      permission_suggestions: [
        { type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'npm publish:*' }], behavior: 'allow', destination: 'session' },
      ],
    });
    expect(call).not.toHaveProperty('tool_use_id');
  });

  it('--yes-to answers a matching request in advance, and an allow for the rest of the run answers the run’s later ones', async () => {
    const orca = await OrcaTestEnv.open();
    const setup = askRepo(orca);
    await orca.startWorker();

    const preset = testRunId('yes-to');
    await orca.queue.add(publishJob(setup, preset, 't1', 'npm publish --tag next', { yes_to: [ASK_RULE] }));
    expect((await orca.result(agentJobId(preset, 't1', 1))).status).toBe('completed');
    expect(publishedCommands(setup)).toEqual(['npm publish --tag next']);
    const presetEntries = await streamEntries(orca, preset);
    expect(presetEntries.filter((entry) => entry.event.type === 'permission_request')).toEqual([]);
    expect(bashDecisions(presetEntries).at(-1)).toMatchObject({ decision: 'allow', by: `answer:${ASK_RULE} (--yes-to), mode:full-access` });

    const runId = testRunId('for-run');
    await orca.queue.add(publishJob(setup, runId, 't1', 'npm publish'));
    const ask = await pendingAsk(orca, runId);
    const allow = await orca.cli(['allow', runId, ask.id, '--for-run']);
    expect(allow.stdout).toContain(`allowed, and ${ASK_RULE} for the rest of the run`);
    expect((await orca.result(agentJobId(runId, 't1', 1))).status).toBe('completed');

    await orca.queue.add(publishJob(setup, runId, 't2', 'npm publish --tag later'));
    expect((await orca.result(agentJobId(runId, 't2', 1))).status).toBe('completed');
    expect(publishedCommands(setup)).toEqual(['npm publish --tag next', 'npm publish', 'npm publish --tag later']);
    const later = (await streamEntries(orca, runId)).filter((entry) => entry.task_id === 't2');
    expect(later.filter((entry) => entry.event.type === 'permission_request')).toEqual([]);
    expect(bashDecisions(later).at(-1)!.by).toBe(`answer:${ASK_RULE} (allowed for the run by ${USER} (command)), mode:full-access`);
  });

  it('the first answer on the stream wins, whoever gives it', async () => {
    const orca = await OrcaTestEnv.open();
    const setup = askRepo(orca);
    await orca.startWorker();
    const runId = testRunId('first');
    await orca.queue.add(publishJob(setup, runId, 't1', 'npm publish'));
    const ask = await pendingAsk(orca, runId);
    const answer = { task_id: 't1', request_id: ask.id, by: 'a test', via: 'board' as const };
    await answerRequest(orca.redis, orca.keys, runId, { ...answer, allowed: false, reason: 'denied first' });
    await answerRequest(orca.redis, orca.keys, runId, { ...answer, allowed: true, reason: 'allowed second' });

    expect((await orca.result(agentJobId(runId, 't1', 1))).status).toBe('completed');
    expect(publishedCommands(setup)).toEqual([]);
    const [publish] = await toolOutcomes(orca.redis, orca.keys, runId, 't1');
    expect(publish!.preview).toBe('Permission to use Bash was denied: denied first');
    expect((await readRunBoard(orca.redis, orca.keys, runId))!.answered[0]!.answer).toMatchObject({
      allowed: false,
      reason: 'denied first',
    });
  });

  it('orca abort while a request is pending ends the agent at once, with no answer needed', async () => {
    const orca = await OrcaTestEnv.open();
    const setup = askRepo(orca);
    await orca.startWorker();
    const runId = testRunId('abort');
    await orca.queue.add(publishJob(setup, runId, 't1', 'npm publish'));
    await pendingAsk(orca, runId);

    const abort = await orca.cli(['abort', runId]);
    expect(abort.code, abort.stderr).toBe(0);
    const result = await orca.result(agentJobId(runId, 't1', 1));
    expect(result.status).toBe('aborted');
    expect(publishedCommands(setup)).toEqual([]);
    const answers = (await streamEntries(orca, runId)).filter((entry) => entry.event.type === 'permission_answer');
    expect(answers.map((entry) => entry.event)).toEqual([expect.objectContaining({ allowed: false, via: 'abort' })]);
    expect((await readRunBoard(orca.redis, orca.keys, runId))!.asks).toEqual([]);
  });

  it('orca allow without a request id, when none or several are pending, says which and changes nothing', async () => {
    const orca = await OrcaTestEnv.open();
    const setup = askRepo(orca);
    await orca.startWorker({ concurrency: 2 });
    const runId = testRunId('several');
    await orca.queue.add(publishJob(setup, runId, 't1', 'npm publish --tag one'));
    await orca.queue.add(publishJob(setup, runId, 't2', 'npm publish --tag two'));
    const first = await pendingAsk(orca, runId, 't1');
    const second = await pendingAsk(orca, runId, 't2');

    const vague = await orca.cli(['allow', runId]);
    expect(vague.code).toBe(2);
    expect(vague.stderr).toContain(`run ${runId} has 2 pending permission requests; name one: `);
    expect(vague.stderr).toContain(`${first.id} (t1: Bash npm publish --tag one)`);
    expect(vague.stderr).toContain(`${second.id} (t2: Bash npm publish --tag two)`);
    const unknown = await orca.cli(['deny', runId, 'nosuchid']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(`run ${runId} has no permission request nosuchid; pending: `);
    expect(publishedCommands(setup)).toEqual([]);

    for (const ask of [first, second]) expect((await orca.cli(['deny', runId, ask.id])).code).toBe(0);
    for (const task of ['t1', 't2']) expect((await orca.result(agentJobId(runId, task, 1))).status).toBe('completed');
    const none = await orca.cli(['allow', runId]);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(`orca: run ${runId} has no pending permission requests.\n`);
  });
});
