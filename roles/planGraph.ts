/** A dependency cycle among subtasks as a path of ids (first id repeated at the end), or undefined. */
export function findCycle(subtasks: ReadonlyArray<{ id: string; depends_on: readonly string[] }>): string[] | undefined {
  const deps = new Map(subtasks.map((task) => [task.id, task.depends_on]));
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === 'done') return undefined;
    if (state.get(id) === 'visiting') return [...stack.slice(stack.indexOf(id)), id];
    state.set(id, 'visiting');
    stack.push(id);
    for (const dep of deps.get(id) ?? []) {
      const found = visit(dep);
      if (found) return found;
    }
    stack.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const task of subtasks) {
    const found = visit(task.id);
    if (found) return found;
  }
  return undefined;
}
