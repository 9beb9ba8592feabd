import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../shared/core/events/agentEvent.js';
import type { StopCheck } from '../../shared/core/loop/session.js';
import type { ScriptTurn } from '../../shared/core/model/scriptFile.js';
import { RedisTaskStore } from '../../shared/infra/tasks/redisTaskStore.js';
import { chainStopChecks } from '../../shared/infra/tasks/stopCheckChain.js';
import { createVerificationNudge } from '../../shared/infra/tasks/verificationNudge.js';
import { createStopCheck } from '../../shared/policy/hooks/stopHooks.js';
import { bashTool } from '../../shared/tools/bash.js';
import { editTool } from '../../shared/tools/edit.js';
import { readTool } from '../../shared/tools/read.js';
import { taskCreateTool } from '../../shared/tools/taskCreate.js';
import { taskListTool } from '../../shared/tools/taskList.js';
import { taskUpdateTool } from '../../shared/tools/taskUpdate.js';
import { exitHook, hooksOf } from '../hooks/hookTestKit.js';
import { testRedis } from '../support/redis.js';
import { addProject, bash, report, runWorker, TEST_COMMAND } from '../verify/traps/trapKit.js';

const NUDGE_START = 'You have completed 3 tasks, but nothing shows they were verified';

function create(subject: string): ScriptTurn {
  return { tools: [{ name: 'TaskCreate', input: { subject, description: `${subject}.` } }] };
}

function complete(taskId: string): ScriptTurn {
  return { tools: [{ name: 'TaskUpdate', input: { taskId, status: 'completed' } }] };
}

const EDIT: ScriptTurn = {
  tools: [
    { name: 'Read', input: { file_path: 'src/add.mjs' } },
    { name: 'Edit', input: { file_path: 'src/add.mjs', old_string: 'a + b', new_string: 'b + a' } },
  ],
};
const DONE = report([], 'All tasks done.');

async function session(turns: ScriptTurn[], stopCheck: StopCheck) {
  const { dir } = addProject();
  const { redis, keys } = testRedis();
  const services = { taskList: { store: new RedisTaskStore(redis, keys, 'run-1', 't1') } };
  const run = await runWorker({
    root: dir,
    turns,
    stopCheck,
    services,
    tools: [readTool, editTool, bashTool, taskCreateTool, taskUpdateTool, taskListTool],
  });
  const userTexts = run.session.messages
    .filter((message) => message.role === 'user')
    .flatMap((message) => message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])));
  const notices = run.events.flatMap((event: AgentEvent) => (event.type === 'notice' ? [event.message] : []));
  return { run, userTexts, notices };
}

describe('the verification nudge', () => {
  it('reminds an agent that completed 3 tasks without verifying, at most twice, then lets it end with a notice', async () => {
    const { run, userTexts, notices } = await session(
      [
        create('Write the parser'),
        create('Write the printer'),
        create('Wire the CLI'),
        complete('1'),
        complete('2'),
        complete('3'),
        EDIT,
        DONE,
        DONE,
        DONE,
      ],
      createVerificationNudge(),
    );
    expect(run.result.reason).toBe('report');
    const nudges = userTexts.filter((text) => text.startsWith(NUDGE_START));
    expect(nudges).toHaveLength(2);
    expect(nudges[0]).toContain('no verification task is completed; no check (tests, type check, build) has passed in this session');
    expect(
      notices.some((notice) => /verification nudge: 3 tasks completed .* reminded 2 time\(s\), letting the agent end/.test(notice)),
    ).toBe(true);
  });

  it('does not remind an agent whose completed verification task is backed by a check that passed after its last edit', async () => {
    const { run, userTexts } = await session(
      [
        create('Write the parser'),
        create('Write the printer'),
        create('Verify the parser and printer'),
        EDIT,
        complete('1'),
        complete('2'),
        bash(TEST_COMMAND),
        complete('3'),
        DONE,
      ],
      createVerificationNudge(),
    );
    expect(run.result.reason).toBe('report');
    expect(run.result.turns).toBe(9);
    expect(userTexts.some((text) => text.startsWith(NUDGE_START))).toBe(false);
  });

  it('reminds when the verification task is ticked but the code changed after the last passing check', async () => {
    const { userTexts } = await session(
      [
        create('Write the parser'),
        create('Write the printer'),
        create('Verify the parser'),
        bash(TEST_COMMAND),
        EDIT,
        complete('1'),
        complete('2'),
        complete('3'),
        DONE,
        DONE,
      ],
      createVerificationNudge({ maxReminders: 1 }),
    );
    const nudges = userTexts.filter((text) => text.startsWith(NUDGE_START));
    expect(nudges).toHaveLength(1);
    expect(nudges[0]).toContain('no check passed on the code as it is now');
    expect(nudges[0]).not.toContain('no verification task');
  });

  it('stays quiet with fewer than 3 completed tasks', async () => {
    const { run, userTexts } = await session(
      [create('a'), create('b'), complete('1'), complete('2'), EDIT, DONE],
      createVerificationNudge(),
    );
    expect(run.result.turns).toBe(6);
    expect(userTexts.some((text) => text.startsWith(NUDGE_START))).toBe(false);
  });

  it('runs beside the Stop hooks: both speak in one continuation, each bounded on its own', async () => {
    const hooks = hooksOf({ Stop: [{ hooks: [{ type: 'command', command: exitHook(2, 'run the linter before you stop') }] }] });
    const { run, userTexts, notices } = await session(
      [create('a'), create('b'), create('c'), complete('1'), complete('2'), complete('3'), DONE, DONE],
      chainStopChecks(createStopCheck(hooks, { limit: 1 }), createVerificationNudge({ maxReminders: 1 })),
    );
    expect(run.result.reason).toBe('report');
    const continuation = userTexts.find((text) => text.includes('Stop hook feedback'))!;
    expect(continuation).toContain('run the linter before you stop');
    expect(continuation).toContain(NUDGE_START);
    expect(
      notices.filter((notice) => /Stop hooks blocked the agent from stopping 1 times in a row|verification nudge:/.test(notice)),
    ).toHaveLength(2);
  });
});
