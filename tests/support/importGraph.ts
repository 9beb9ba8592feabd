import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The layers of the source tree and what each may import, as the README's Layout section states
 * them. A file's layer is the first entry whose folder holds it; a layer may import its own and
 * lower-ranked layers only. `coordinator/` and `workers/` share a rank but do not import each
 * other (the CLI's dispatch of `orca worker` is the one exception, below).
 */
export const LAYERS = [
  { folder: 'shared/core', rank: 1 },
  { folder: 'shared/infra', rank: 2 },
  { folder: 'shared/policy', rank: 3 },
  { folder: 'shared/context', rank: 4 },
  { folder: 'shared/tools', rank: 5 },
  { folder: 'shared/harness', rank: 6 },
  { folder: 'roles', rank: 7 },
  { folder: 'workers', rank: 8 },
  { folder: 'coordinator', rank: 8 },
] as const;

/** The CLI's `orca worker` command (its table's entry, coordinator/cli/) starts a worker, so it may reach into workers/. */
const ALLOWED_SIDEWAYS = new Set(['coordinator/cli.ts -> workers']);

export interface ImportEdge {
  from: string;
  to: string;
  /** The specifier as written, for the message. */
  spec: string;
  line: number;
}

/** Every relative import of every .ts file under `roots` (type imports, re-exports and dynamic imports included). */
export function readImportGraph(rootDir: string, roots: readonly string[] = ['shared', 'roles', 'workers', 'coordinator']): ImportEdge[] {
  const files = roots.flatMap((root) => listTs(path.join(rootDir, root)));
  const known = new Set(files.map((file) => path.relative(rootDir, file)));
  const edges: ImportEdge[] = [];
  for (const file of files) {
    const from = path.relative(rootDir, file);
    const source = readFileSync(file, 'utf8');
    const info = ts.preProcessFile(source, true, true);
    for (const ref of info.importedFiles) {
      if (!ref.fileName.startsWith('.')) continue;
      const resolved = path.normalize(path.join(path.dirname(from), ref.fileName)).replace(/\.js$/, '.ts');
      const to = known.has(resolved) ? resolved : known.has(`${resolved}.ts`) ? `${resolved}.ts` : undefined;
      if (!to) continue;
      edges.push({ from, to, spec: ref.fileName, line: lineOf(source, ref.pos) });
    }
  }
  return edges;
}

function listTs(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'node_modules' || name === 'sample-repo' ? [] : listTs(full);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [full] : [];
  });
}

function lineOf(source: string, pos: number): number {
  return source.slice(0, pos).split('\n').length;
}

export function layerOf(file: string): (typeof LAYERS)[number] | undefined {
  return LAYERS.find((layer) => file === layer.folder || file.startsWith(`${layer.folder}/`));
}

/** Imports that go up a layer (or sideways between coordinator/ and workers/), each as one line naming the file and the import. */
export function upwardImports(edges: readonly ImportEdge[]): string[] {
  const found: string[] = [];
  for (const edge of edges) {
    const from = layerOf(edge.from);
    const to = layerOf(edge.to);
    if (!from || !to || from === to) continue;
    const sideways = from.rank === to.rank && !ALLOWED_SIDEWAYS.has(`${edge.from} -> ${to.folder}`);
    if (to.rank > from.rank || sideways) {
      found.push(`${edge.from}:${edge.line} imports ${edge.spec} (${edge.to}): ${from.folder}/ may not import ${to.folder}/`);
    }
  }
  return found;
}

/** Cycles among `nodes` (strongly connected components of two or more), each as its members. */
export function cycles(nodes: Iterable<string>, next: (node: string) => Iterable<string>): string[][] {
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    order.set(node, index);
    low.set(node, index);
    index++;
    stack.push(node);
    onStack.add(node);
    for (const other of next(node)) {
      if (!order.has(other)) {
        visit(other);
        low.set(node, Math.min(low.get(node)!, low.get(other)!));
      } else if (onStack.has(other)) {
        low.set(node, Math.min(low.get(node)!, order.get(other)!));
      }
    }
    if (low.get(node) === order.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of nodes) if (!order.has(node)) visit(node);
  return found;
}

/** Import cycles between files. */
export function fileCycles(edges: readonly ImportEdge[]): string[][] {
  const next = adjacency(edges.map((edge) => [edge.from, edge.to]));
  return cycles(next.keys(), (node) => next.get(node) ?? []);
}

/** Import cycles between folders of shared/ (a folder is a file's directory). */
export function folderCycles(edges: readonly ImportEdge[]): string[][] {
  const pairs = edges
    .filter((edge) => edge.from.startsWith('shared/') && edge.to.startsWith('shared/'))
    .map((edge) => [path.dirname(edge.from), path.dirname(edge.to)] as [string, string])
    .filter(([a, b]) => a !== b);
  const next = adjacency(pairs);
  return cycles(next.keys(), (node) => next.get(node) ?? []);
}

function adjacency(pairs: ReadonlyArray<readonly [string, string]>): Map<string, Set<string>> {
  const next = new Map<string, Set<string>>();
  for (const [a, b] of pairs) {
    if (!next.has(a)) next.set(a, new Set());
    if (!next.has(b)) next.set(b, new Set());
    next.get(a)!.add(b);
  }
  return next;
}
