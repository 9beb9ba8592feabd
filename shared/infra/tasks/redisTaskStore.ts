import type { Redis } from 'ioredis';
import { describeZodError } from '../../core/boundary/zodIssues.js';
import { codeUnitOrder } from '../../core/text/codeUnitOrder.js';
import type { Keys } from '../redis/keys.js';
import { type Task, TaskHashSchema, taskToHash } from './task.js';
import { addTask, changeTask, removeTask, type TaskChange, type TaskMap } from './taskRules.js';
import type { NewTask, TaskStore, TaskWrite } from './taskStore.js';

/**
 * A task list in Redis: a hash per task (`…:run:<run>:tasklist:<list>:task:<id>`), a sorted set
 * of ids scored by creation time, and a counter that numbers new tasks (keys.ts). A write reads the whole list,
 * applies the rules in memory, and commits every task it touched in one Lua script that checks
 * each one's `version` first: if another writer (the coordinator, another tool call) got there
 * in between, nothing is written and the write is tried again on the fresh list.
 */
const COMMIT = `
local ops = cjson.decode(ARGV[1])
for _, op in ipairs(ops) do
  local current = redis.call('HGET', op.key, 'version')
  if op.expect == 0 then
    if current then return 0 end
  elseif current ~= tostring(op.expect) then
    return 0
  end
end
for _, op in ipairs(ops) do
  if op.remove then
    redis.call('DEL', op.key)
    redis.call('ZREM', KEYS[1], op.id)
  else
    redis.call('DEL', op.key)
    redis.call('HSET', op.key, unpack(op.fields))
    if op.expect == 0 then redis.call('ZADD', KEYS[1], op.order, op.id) end
  end
end
return 1
`;

const MAX_ATTEMPTS = 20;

interface Op {
  key: string;
  id: string;
  expect: number;
  fields?: string[];
  order?: number;
  remove?: true;
}

export class RedisTaskStore implements TaskStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
    readonly runId: string,
    readonly listId: string,
  ) {}

  async list(): Promise<Task[]> {
    const ids = await this.redis.zrange(this.keys.taskListIndex(this.runId, this.listId), 0, -1);
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hgetall(this.key(id));
    const replies = (await pipeline.exec()) ?? [];
    const tasks: Task[] = [];
    replies.forEach(([error, hash], index) => {
      if (error) throw error;
      const fields = hash as Record<string, string>;
      // Removed between the index read and this one: it is simply gone.
      if (Object.keys(fields).length === 0) return;
      tasks.push(this.parse(ids[index]!, fields));
    });
    return tasks.sort((a, b) => a.order - b.order || compareIds(a.id, b.id));
  }

  async get(id: string): Promise<Task | undefined> {
    const fields = await this.redis.hgetall(this.key(id));
    return Object.keys(fields).length === 0 ? undefined : this.parse(id, fields);
  }

  async reserveId(): Promise<string> {
    for (;;) {
      const id = String(await this.redis.incr(this.keys.taskListSequence(this.runId, this.listId)));
      // Ids the coordinator chose may already be taken by a number.
      if ((await this.redis.exists(this.key(id))) === 0) return id;
    }
  }

  async create(input: NewTask): Promise<TaskWrite> {
    const id = input.id ?? (await this.reserveId());
    return this.write((tasks, now) => {
      const task: Task = {
        id,
        subject: input.subject,
        description: input.description,
        ...(input.activeForm !== undefined ? { activeForm: input.activeForm } : {}),
        status: 'pending',
        blockedBy: input.blockedBy ?? [],
        blocks: input.blocks ?? [],
        ...(input.owner !== undefined ? { owner: input.owner } : {}),
        metadata: input.metadata ?? {},
        createdAt: now,
        updatedAt: now,
        version: 1,
        order: now,
      };
      return { id, changed: addTask(tasks, task, now) };
    });
  }

  update(id: string, change: TaskChange): Promise<TaskWrite> {
    return this.write((tasks, now) => ({ id, changed: changeTask(tasks, id, change, now) }));
  }

  async remove(id: string): Promise<Task[]> {
    const result = await this.write((tasks, now) => ({ id, changed: removeTask(tasks, id, now), removed: tasks.get(id) }));
    return result.changed;
  }

  private async write(apply: (tasks: TaskMap, now: number) => { id: string; changed: Task[]; removed?: Task }): Promise<TaskWrite> {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
      const before: TaskMap = new Map((await this.list()).map((task) => [task.id, task]));
      const { id, changed, removed } = apply(before, Date.now());
      const ops: Op[] = changed.map((task) => {
        const old = before.get(task.id);
        const next = { ...task, version: (old?.version ?? 0) + 1 };
        return {
          key: this.key(task.id),
          id: task.id,
          expect: old?.version ?? 0,
          fields: Object.entries(taskToHash(next)).flat(),
          order: next.order,
        };
      });
      if (removed) ops.push({ key: this.key(removed.id), id: removed.id, expect: removed.version, remove: true });
      if (ops.length === 0) return { task: before.get(id)!, changed: [] };
      const committed = await this.redis.eval(COMMIT, 1, this.keys.taskListIndex(this.runId, this.listId), JSON.stringify(ops));
      if (committed === 1) {
        const written = changed.map((task) => ({ ...task, version: (before.get(task.id)?.version ?? 0) + 1 }));
        return { task: written.find((task) => task.id === id) ?? removed ?? before.get(id)!, changed: written };
      }
    }
    throw new Error(`task list ${this.listId} of run ${this.runId} kept changing under ${MAX_ATTEMPTS} attempts to write it; try again`);
  }

  private key(id: string): string {
    return this.keys.taskListTask(this.runId, this.listId, id);
  }

  private parse(id: string, fields: Record<string, string>): Task {
    const parsed = TaskHashSchema.safeParse(fields);
    if (!parsed.success) throw new Error(describeZodError(parsed.error, `task ${id} of list ${this.listId} (run ${this.runId}) in Redis`));
    return parsed.data;
  }
}

/** Numbered ids (the store's own) in number order (2 before 10), others by their code units (codeUnitOrder.ts says why not localeCompare). */
function compareIds(a: string, b: string): number {
  const numbered = /^\d+$/;
  if (numbered.test(a) && numbered.test(b)) return a.length - b.length || codeUnitOrder(a, b);
  return codeUnitOrder(a, b);
}
