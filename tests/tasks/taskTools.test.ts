import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { modeOnlySlots, runToolCall } from '../../shared/core/tool/pipeline.js';
import { ToolRegistry } from '../../shared/core/tool/registry.js';
import { RedisTaskStore } from '../../shared/infra/tasks/redisTaskStore.js';
import type { HooksConfig } from '../../shared/policy/hooks/hooksConfig.js';
import { catalogToolNames } from '../../shared/tools/catalog.js';
import { taskCreateTool } from '../../shared/tools/taskCreate.js';
import { taskListTool } from '../../shared/tools/taskList.js';
import { taskUpdateTool } from '../../shared/tools/taskUpdate.js';
import { exitHook, hooksOf, recorded, respondHook } from '../hooks/hookTestKit.js';
import { testRedis } from '../support/redis.js';
import { tempDir } from '../support/tempDir.js';
import { makeToolContext } from '../support/toolContext.js';

const registry = new ToolRegistry([taskCreateTool, taskUpdateTool, taskListTool]);

function withTaskList(hooks?: HooksConfig) {
  const { redis, keys } = testRedis();
  const store = new RedisTaskStore(redis, keys, 'run-1', 't1');
  const ctx = makeToolContext({ mode: 'read-only' });
  ctx.services.taskList = { store };
  ctx.services.hooks = hooks;
  let n = 0;
  const call = async (name: string, input: unknown) => {
    const run = await runToolCall({ id: `toolu_${++n}`, name, input }, registry, modeOnlySlots, ctx);
    return { text: run.block.content, isError: run.block.is_error === true, data: run.output?.data };
  };
  return { store, ctx, call };
}

describe('TaskCreate, TaskUpdate, TaskList', () => {
  it("use Claude Code's names and fields, work in read-only mode, and are in the catalog", async () => {
    expect(catalogToolNames()).toEqual(expect.arrayContaining(['TaskCreate', 'TaskUpdate', 'TaskList']));
    const specs = Object.fromEntries(
      registry.specs().map((spec) => [spec.name, spec.input_schema as { properties: Record<string, unknown>; required?: string[] }]),
    );
    expect(Object.keys(specs.TaskCreate!.properties)).toEqual(['subject', 'description', 'activeForm', 'metadata']);
    expect(specs.TaskCreate!.required).toEqual(['subject', 'description']);
    expect(Object.keys(specs.TaskUpdate!.properties)).toEqual([
      'taskId',
      'subject',
      'description',
      'activeForm',
      'status',
      'addBlocks',
      'addBlockedBy',
      'owner',
      'metadata',
    ]);
    expect(specs.TaskUpdate!.required).toEqual(['taskId']);
    expect(specs.TaskList!.properties).toEqual({});

    const { call } = withTaskList();
    const created = await call('TaskCreate', {
      subject: 'Write the parser',
      description: 'Parse the grammar.',
      activeForm: 'Writing the parser',
    });
    expect(created).toMatchObject({
      isError: false,
      text: 'Task #1 created successfully: Write the parser',
      data: { task: { id: '1', subject: 'Write the parser' } },
    });
  });

  it('a whole list: create, link, start, complete, fail, and the list as TaskList shows it', async () => {
    const { call } = withTaskList();
    await call('TaskCreate', { subject: 'Schema', description: 's' });
    await call('TaskCreate', { subject: 'API', description: 'a' });
    await call('TaskCreate', { subject: 'Verify the API', description: 'v', metadata: { kind: 'verification' } });
    expect((await call('TaskUpdate', { taskId: '#2', addBlockedBy: ['1'], owner: 'worker-t1' })).text).toBe(
      'Updated task #2: addBlockedBy, owner.',
    );
    expect((await call('TaskUpdate', { taskId: '3', addBlockedBy: ['2'] })).isError).toBe(false);

    const early = await call('TaskUpdate', { taskId: '2', status: 'in_progress' });
    expect(early).toMatchObject({
      isError: true,
      text: 'Task #2 was not changed: task #2 cannot be started yet: it is blocked by #1 (pending), which must complete first.',
    });

    expect((await call('TaskUpdate', { taskId: '1', status: 'in_progress' })).data).toMatchObject({
      statusChange: { from: 'pending', to: 'in_progress' },
    });
    expect((await call('TaskUpdate', { taskId: '1', status: 'failed' })).text).toBe(
      'Updated task #1: status in_progress → failed. Task #2 is now blocked. Task #3 is now blocked.',
    );
    expect((await call('TaskList', {})).text).toBe(
      ['#1 [failed] Schema', '#2 [blocked] API (blocked by #1) [owner: worker-t1]', '#3 [blocked] Verify the API (blocked by #2)'].join(
        '\n',
      ),
    );
    expect((await call('TaskUpdate', { taskId: '1', status: 'deleted' })).text).toBe(
      'Task #1 deleted. Task #2 is now pending. Task #3 is now pending.',
    );
  });

  it('says what is wrong with a bad call, and changes nothing', async () => {
    const { call, store } = withTaskList();
    expect((await call('TaskCreate', { subject: '  ', description: 'x' })).text).toBe(
      'TaskCreate input is invalid: subject: give the task a subject (a short title)',
    );
    expect((await call('TaskUpdate', { taskId: '4', status: 'completed' })).text).toBe(
      'There is no task #4. The task list is empty. Call TaskList to see them.',
    );
    await call('TaskCreate', { subject: 'a', description: 'a' });
    expect((await call('TaskUpdate', { taskId: '1', status: 'done' })).text).toMatch(/^TaskUpdate input is invalid: status: /);
    expect((await call('TaskUpdate', { taskId: '1', status: 'blocked' })).text).toMatch(
      /^Task #1 was not changed: a task is never set blocked by hand/,
    );
    expect((await store.get('1'))!.status).toBe('pending');
    expect((await call('TaskList', {})).text).toBe('#1 [pending] a');
  });

  it('a session without a task list is told so, as an error', async () => {
    const ctx = makeToolContext();
    const run = await runToolCall({ id: 'toolu_1', name: 'TaskList', input: {} }, registry, modeOnlySlots, ctx);
    expect(run.block).toMatchObject({ is_error: true, content: 'TaskList is not available: this session has no task list.' });
  });
});

describe('TaskCreated and TaskCompleted hooks', () => {
  it("a TaskCreated hook that exits 2 refuses the task: nothing is created, its reason is the error; it reads Claude Code's fields", async () => {
    const dir = tempDir();
    const record = path.join(dir, 'created.jsonl');
    const hooks = hooksOf({
      TaskCreated: [
        { hooks: [{ type: 'command', command: respondHook(dir, { record, stderr: 'every task needs a ticket number', exit: 2 }) }] },
      ],
    });
    const { call, store } = withTaskList(hooks);
    const refused = await call('TaskCreate', { subject: 'Refactor everything', description: 'all of it' });
    expect(refused).toMatchObject({
      isError: true,
      text: 'A TaskCreated hook refused the task "Refactor everything"; it was not created. The hook said: every task needs a ticket number',
    });
    expect(await store.list()).toEqual([]);
    expect(recorded(record)[0]!.input).toMatchObject({
      hook_event_name: 'TaskCreated',
      task_subject: 'Refactor everything',
      task_description: 'all of it',
      task_id: expect.any(String),
    });
  });

  it('a TaskCompleted hook that exits 2 keeps the task open, saying why; exit 0 lets it complete', async () => {
    const blocking = hooksOf({
      TaskCompleted: [{ hooks: [{ type: 'command', command: exitHook(2, 'the tests for this task have not run') }] }],
    });
    const { call, store } = withTaskList(blocking);
    await call('TaskCreate', { subject: 'Parser', description: 'p' });
    await call('TaskUpdate', { taskId: '1', status: 'in_progress' });
    const refused = await call('TaskUpdate', { taskId: '1', status: 'completed' });
    expect(refused).toMatchObject({
      isError: true,
      text: 'A TaskCompleted hook refused to let task #1 complete; it stays in_progress. The hook said: the tests for this task have not run',
    });
    expect((await store.get('1'))!.status).toBe('in_progress');

    const allowing = hooksOf({ TaskCompleted: [{ hooks: [{ type: 'command', command: exitHook(0) }] }] });
    const second = withTaskList(allowing);
    await second.call('TaskCreate', { subject: 'Parser', description: 'p' });
    expect((await second.call('TaskUpdate', { taskId: '1', status: 'completed' })).isError).toBe(false);
    expect((await second.store.get('1'))!.status).toBe('completed');
  });

  it('a TaskCompleted hook is not asked about a completion the rules refuse', async () => {
    const dir = tempDir();
    const record = path.join(dir, 'completed.jsonl');
    const hooks = hooksOf({ TaskCompleted: [{ hooks: [{ type: 'command', command: respondHook(dir, { record }) }] }] });
    const { call } = withTaskList(hooks);
    await call('TaskCreate', { subject: 'a', description: 'a' });
    await call('TaskCreate', { subject: 'b', description: 'b' });
    await call('TaskUpdate', { taskId: '2', addBlockedBy: ['1'] });
    expect((await call('TaskUpdate', { taskId: '2', status: 'completed' })).text).toContain(
      'cannot be completed yet: it is blocked by #1 (pending)',
    );
    await call('TaskUpdate', { taskId: '1', status: 'completed' });
    expect(recorded(record).map((line) => line.input.task_id)).toEqual(['1']);
  });
});
