import { describe, expect, it } from 'vitest';
import { overlap, PlanError, schedulePlan, topologicalOrder } from '../../coordinator/plan/dag.js';
import { PlanOutputSchema, type PlanSubtask } from '../../roles/outputs.js';

const task = (id: string, paths: string[], depends_on: string[] = []): PlanSubtask => ({
  id,
  title: id,
  instructions: `do ${id}`,
  paths,
  depends_on,
  checks: [],
});

const FILES = ['src/a.ts', 'src/b.ts', 'src/shared/util.ts', 'test/a.test.ts', 'README.md'];

describe('the plan DAG', () => {
  it('leaves independent subtasks with disjoint paths alone', () => {
    const plan = schedulePlan([task('t1', ['src/a.ts']), task('t2', ['src/b.ts'])], FILES);
    expect(plan.subtasks.map((t) => t.depends_on)).toEqual([[], []]);
    expect(plan.notes).toEqual([]);
  });

  it('serialises two subtasks that could run at once and own the same file, saying why', () => {
    const plan = schedulePlan([task('t1', ['src/**']), task('t2', ['src/shared/*.ts', 'test/**']), task('t3', ['README.md'])], FILES);
    expect(plan.subtasks.find((t) => t.id === 't2')!.depends_on).toEqual(['t1']);
    expect(plan.subtasks.find((t) => t.id === 't3')!.depends_on).toEqual([]);
    expect(plan.notes).toEqual([{ task_id: 't2', message: expect.stringContaining('src/shared/util.ts') }]);
  });

  it('does not add an edge between subtasks already ordered, directly or transitively', () => {
    const plan = schedulePlan([task('t1', ['src/a.ts']), task('t2', ['src/b.ts'], ['t1']), task('t3', ['src/a.ts'], ['t2'])], FILES);
    expect(plan.notes).toEqual([]);
    expect(plan.subtasks.find((t) => t.id === 't3')!.depends_on).toEqual(['t2']);
  });

  it('sees overlap on files that do not exist yet through the globs themselves', () => {
    expect(overlap(['src/new/**'], ['src/new/feature.ts'], FILES)).toBe('src/new/** / src/new/feature.ts');
    expect(overlap(['docs/*.md'], ['src/*.ts'], FILES)).toBeUndefined();
  });

  it('refuses unknown ids, self-dependencies and cycles with the ids named', () => {
    expect(() => schedulePlan([task('t1', ['a'], ['t9'])], FILES)).toThrow(
      new PlanError('subtask t1 depends on t9, which is not in the plan (ids: t1)'),
    );
    expect(() => schedulePlan([task('t1', ['a'], ['t1'])], FILES)).toThrow(/t1 depends on itself/);
    expect(() => schedulePlan([task('t1', ['a'], ['t2']), task('t2', ['b'], ['t1'])], FILES)).toThrow(/cycle: t1 → t2 → t1/);
  });

  it('orders subtasks after their dependencies', () => {
    const order = topologicalOrder([task('t3', ['c'], ['t2']), task('t1', ['a']), task('t2', ['b'], ['t1'])]);
    expect(order.map((t) => t.id)).toEqual(['t1', 't2', 't3']);
  });

  it("tells the Plan agent about unknown ids and cycles through its Report's schema", () => {
    const bad = PlanOutputSchema.safeParse({
      subtasks: [task('t1', ['a'], ['t2']), task('t2', ['b'], ['t1']), task('t3', ['c'], ['nope'])],
      risks: [],
    });
    expect(bad.success).toBe(false);
    const messages = bad.error!.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    expect(messages).toContain('subtasks.2.depends_on.0: nope is not a subtask id (ids: t1, t2, t3)');
    expect(messages).toContain('subtasks: the dependencies form a cycle: t1 → t2 → t1');
  });

  it("refuses a subtask id whose branch would be the run's integration branch", () => {
    const bad = PlanOutputSchema.safeParse({ subtasks: [task('integration', ['a'])], risks: [] });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)).toEqual([
      `subtasks.0.id: "integration" is the run's own branch: pick another id`,
    ]);
  });
});
