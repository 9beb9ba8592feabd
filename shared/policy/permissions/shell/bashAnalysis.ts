import path from 'node:path';
import { findLayout } from './findCommand.js';
import { withoutHereDocuments } from './hereDocuments.js';
import { parseShellCommand, type ShellNode } from './shellParser.js';
import type { BashAnalysis, FindPlaceholder, PossibleCwds, ShellCommand, ShellWord, ShellWrite } from './shellTypes.js';
import { unwrapCommand } from './shellWrappers.js';

type Node = ShellNode;

/**
 * Parses a Bash command with a real shell parser and lists every simple command it runs and every
 * file it redirects into, so each can be checked on its own (`ls && rm -rf x` is two commands,
 * `echo $(rm x)` runs rm). Anything the parser or this walk cannot account for makes the whole
 * analysis fail, and callers refuse what they cannot analyse.
 */
export function analyzeBash(command: string): BashAnalysis {
  const walk = new ShellWalk();
  try {
    // Here-documents the parser cannot read: their bodies are data (hereDocuments.ts), or it is refused.
    walk.script(withoutHereDocuments(command) ?? command, { cwd: ['.'], pipedFrom: [] }, 0);
  } catch (error) {
    if (error instanceof Unanalysable) return { ok: false, reason: error.message };
    throw error;
  }
  return { ok: true, commands: walk.commands, writes: walk.writes };
}

/** Redirection targets that write nowhere on disk. */
export function isHarmlessWriteTarget(target: string): boolean {
  return ['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty'].includes(target) || /^\/dev\/fd\/\d+$/.test(target);
}

class Unanalysable extends Error {}

interface WalkState {
  cwd: PossibleCwds;
  pipedFrom: string[];
}

/** What a command gets besides its words: the assignments before it, or the find that runs it. */
interface RunExtras {
  assignments?: ShellWord[];
  placeholder?: FindPlaceholder;
}

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh']);
const WRITE_OPS = new Set(['great', 'dgreat', 'clobber', 'lessgreat']);
const HEREDOC = new Set(['dless', 'dlessdash']);
const MAX_DEPTH = 8;

class ShellWalk {
  readonly commands: ShellCommand[] = [];
  readonly writes: ShellWrite[] = [];

  script(source: string, state: WalkState, depth: number): PossibleCwds {
    if (depth > MAX_DEPTH) throw new Unanalysable(`commands are nested more than ${MAX_DEPTH} levels deep`);
    let ast: Node;
    try {
      ast = parseShellCommand(source);
    } catch (error) {
      const message = (error instanceof Error ? error.message : String(error)).split('\n')[0]!.replace(/^Error: /, '');
      throw new Unanalysable(`the shell parser could not read it (${message})`);
    }
    return this.node(ast, new Source(source), state, depth);
  }

  private node(node: Node, src: Source, state: WalkState, depth: number): PossibleCwds {
    for (const redirect of node.redirections ?? []) this.redirect(redirect, src, state.cwd, depth);
    switch (node.type) {
      case 'Script':
      case 'CompoundList':
        return this.sequence(node.commands ?? [], src, state, depth);
      case 'Subshell':
        // A subshell's `cd` stays inside it.
        if (node.list) this.node(node.list, src, state, depth);
        return state.cwd;
      case 'Pipeline':
        return this.pipeline(node, src, state, depth);
      case 'LogicalExpression': {
        const afterLeft = this.node(required(node.left), src, state, depth);
        // Each `cd` already keeps the folder it started from as a possibility, so whatever runs
        // after `a && b` or `a || b` is covered by what the right side ends with.
        return this.node(required(node.right), src, { ...state, cwd: afterLeft }, depth);
      }
      case 'Command':
        return this.command(node, src, state, depth);
      case 'Function':
        // Judged where it is defined. It may be called from any folder, and may change folder
        // wherever it is called, so its body and everything after run in folders unknown.
        if (node.body) this.node(node.body, src, { ...state, cwd: undefined }, depth);
        return undefined;
      case 'If':
        return this.branches([node.clause, node.then, node.else], src, state, depth);
      case 'While':
      case 'Until':
        return this.branches([node.clause, node.do], src, state, depth);
      case 'For':
        for (const word of node.wordlist ?? []) this.word(word, src, state.cwd, depth);
        return this.branches([node.do], src, state, depth);
      case 'Case': {
        if (node.clause) this.word(node.clause, src, state.cwd, depth);
        const bodies: (Node | undefined)[] = [];
        for (const item of node.cases ?? []) {
          for (const pattern of item.pattern ?? []) this.word(pattern, src, state.cwd, depth);
          bodies.push(item.body);
        }
        return this.branches(bodies, src, state, depth);
      }
      default:
        throw new Unanalysable(`it uses shell syntax the analysis does not handle (${node.type})`);
    }
  }

  private sequence(nodes: Node[], src: Source, state: WalkState, depth: number): PossibleCwds {
    let cwd = state.cwd;
    for (const child of nodes) cwd = this.node(child, src, { ...state, cwd }, depth);
    return cwd;
  }

  /**
   * Conditional or repeated parts (if, loops, case). Walked in order, each from where the one
   * before may have left the shell. If any of them changes folder, a later iteration or branch
   * may run anywhere: the parts are judged again with the folder unknown, and so is what follows.
   */
  private branches(parts: (Node | undefined)[], src: Source, state: WalkState, depth: number): PossibleCwds {
    const commandsBefore = this.commands.length;
    const writesBefore = this.writes.length;
    let cwd = state.cwd;
    for (const part of parts) if (part) cwd = this.node(part, src, { ...state, cwd }, depth);
    if (sameCwds(cwd, state.cwd)) return state.cwd;
    this.commands.length = commandsBefore;
    this.writes.length = writesBefore;
    for (const part of parts) if (part) this.node(part, src, { ...state, cwd: undefined }, depth);
    return undefined;
  }

  private pipeline(node: Node, src: Source, state: WalkState, depth: number): PossibleCwds {
    const names: string[] = [];
    for (const element of node.commands ?? []) {
      const before = this.commands.length;
      // Every part of a pipeline runs in its own subshell: a `cd` there changes nothing after it.
      this.node(element, src, { cwd: state.cwd, pipedFrom: [...state.pipedFrom, ...names] }, depth);
      for (const found of this.commands.slice(before)) if (found.argv[0]) names.push(found.argv[0].value);
    }
    return state.cwd;
  }

  private command(node: Node, src: Source, state: WalkState, depth: number): PossibleCwds {
    const assignments: ShellWord[] = [];
    for (const prefix of node.prefix ?? []) {
      if (prefix.type === 'Redirect') this.redirect(prefix, src, state.cwd, depth);
      else assignments.push(this.word(prefix, src, state.cwd, depth));
    }
    const written: ShellWord[] = [];
    if (node.name) written.push(this.word(node.name, src, state.cwd, depth));
    for (const part of node.suffix ?? []) {
      if (part.type === 'Redirect') this.redirect(part, src, state.cwd, depth);
      else if (HEREDOC.has(part.type)) throw heredoc();
      else if (part.type === 'Word') written.push(this.word(part, src, state.cwd, depth));
      else throw new Unanalysable(`it uses shell syntax the analysis does not handle (${part.type})`);
    }
    if (written.length === 0) return state.cwd;
    return this.run(written, state, depth, { assignments });
  }

  private run(written: ShellWord[], state: WalkState, depth: number, extras: RunExtras = {}): PossibleCwds {
    const { chdir, ...unwrapped } = unwrapCommand(written);
    const name = unwrapped.argv[0];
    const unclear = unwrapped.unclear ?? (name?.dynamic ? `the command name ${name.raw} is only known when it runs` : undefined);
    // `env -C DIR cmd` runs cmd in DIR; if it cannot get there, cmd does not run at all.
    const cwd = chdir.reduce<PossibleCwds>((dirs, dir) => moveTo(dirs, dir), state.cwd);
    const found: ShellCommand = { written, ...unwrapped, pipedFrom: state.pipedFrom, cwd, assignments: extras.assignments ?? [] };
    if (extras.placeholder) found.placeholder = extras.placeholder;
    if (unclear) found.unclear = unclear;
    this.commands.push(found);
    if (unclear || !name) return state.cwd;
    return this.runsMore(found, state, depth);
  }

  /** Commands that run other commands given as text (`bash -c`, `eval`, `find -exec`), and `cd`. */
  private runsMore(found: ShellCommand, state: WalkState, depth: number): PossibleCwds {
    const command = found.argv[0]?.value ?? '';
    const args = found.argv.slice(1);
    if (SHELLS.has(command)) {
      const script = shellScript(args);
      if (script.kind === 'dynamic') found.unclear = `the script given to ${command} -c is only known when it runs`;
      else if (script.kind === 'stdin') found.unclear = `${command} reads its script from standard input, which cannot be checked`;
      else if (script.kind === 'text') this.script(script.text, { cwd: found.cwd, pipedFrom: [] }, depth + 1);
      return state.cwd;
    }
    if (command === 'eval') {
      if (args.some((arg) => arg.dynamic)) {
        found.unclear = 'eval runs text that is only known when it runs';
        return state.cwd;
      }
      // eval runs in this shell, so a `cd` inside it carries on.
      return this.script(args.map((arg) => arg.value).join(' '), state, depth + 1);
    }
    if (command === 'find') {
      const layout = findLayout(args);
      const placeholder: FindPlaceholder = { starts: layout.starts, cwd: found.cwd, followsLinks: layout.followsLinks };
      for (const inner of layout.runs) {
        // -execdir runs in the folder of each file found: somewhere under the start paths.
        const cwd = inner.inFoundFolder ? undefined : found.cwd;
        this.run(inner.argv, { cwd, pipedFrom: [] }, depth + 1, { placeholder });
      }
      return state.cwd;
    }
    if (command === 'cd' || command === 'pushd') return changeDirectory(args, state.cwd);
    if (command === 'popd' || command === 'source' || command === '.') return undefined;
    return state.cwd;
  }

  private redirect(node: Node, src: Source, cwd: PossibleCwds, depth: number): void {
    const op = typeof node.op === 'object' ? node.op : undefined;
    const kind = op?.type ?? '';
    if (HEREDOC.has(kind)) throw heredoc();
    const target = this.word(required(node.file), src, cwd, depth);
    const duplicatesDescriptor = kind === 'greatand' && /^(\d+-?|-)$/.test(target.value);
    if (WRITE_OPS.has(kind) || (kind === 'greatand' && !duplicatesDescriptor)) {
      this.writes.push({ op: op?.text ?? kind, target, cwd });
    }
  }

  private word(node: Node, src: Source, cwd: PossibleCwds, depth: number): ShellWord {
    const text = node.text ?? '';
    for (const expansion of node.expansion ?? []) {
      if (expansion.type === 'CommandExpansion') {
        // `$(…)` runs in a subshell: its commands count, its `cd` does not carry on.
        this.script(expansion.command ?? '', { cwd, pipedFrom: [] }, depth + 1);
      } else {
        // The parser does not look inside `${x:-…}` or `$((…))`: a substitution hidden there
        // would run unseen, so refuse it.
        const inside =
          expansion.type === 'ArithmeticExpansion' ? (expansion.expression ?? '') : text.slice(expansion.loc.start, expansion.loc.end + 1);
        if (inside.includes('$(') || inside.includes('`')) {
          throw new Unanalysable(`it hides a command substitution inside ${inside}, which the analysis cannot see into`);
        }
      }
    }
    const dynamic = (node.expansion?.length ?? 0) > 0 || text.startsWith('~');
    return { value: text, raw: src.slice(node), dynamic };
  }
}

/** Source text by the parser's offsets, which count code points rather than UTF-16 units. */
class Source {
  private readonly chars: string[];
  constructor(text: string) {
    this.chars = Array.from(text);
  }
  slice(node: Node): string {
    if (!node.loc) return node.text ?? '';
    return this.chars.slice(node.loc.start.char, node.loc.end.char + 1).join('');
  }
}

function heredoc(): Unanalysable {
  return new Unanalysable(
    "this here-document (<<) cannot be analysed: use a quoted delimiter (<<'EOF') with nothing else on its lines, write the text with the Write tool, or pass it as a quoted argument",
  );
}

function required(node: Node | undefined): Node {
  if (!node) throw new Unanalysable('the shell parser returned an incomplete tree');
  return node;
}

function sameCwds(a: PossibleCwds, b: PossibleCwds): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && a.every((dir, index) => dir === b[index]);
}

/** `cd DIR`: the command may fail, so the folder it started from stays possible. */
function changeDirectory(args: ShellWord[], cwd: PossibleCwds): PossibleCwds {
  const operands = args.filter((arg) => !/^-[LPe@]+$/.test(arg.value));
  const target = operands[0];
  if (!target || target.value === '-' || operands.length > 1) return undefined;
  const moved = moveTo(cwd, target);
  return cwd === undefined || moved === undefined ? undefined : [...new Set([...cwd, ...moved])];
}

/** The folders reached by moving from each of `cwd` to `dir`; undefined when that cannot be told. */
function moveTo(cwd: PossibleCwds, dir: ShellWord): PossibleCwds {
  if (cwd === undefined || dir.dynamic || dir.value === '') return undefined;
  return [
    ...new Set(cwd.map((from) => (path.posix.isAbsolute(dir.value) ? path.posix.normalize(dir.value) : path.posix.join(from, dir.value)))),
  ];
}

type ShellScript = { kind: 'text'; text: string } | { kind: 'dynamic' } | { kind: 'stdin' } | { kind: 'file' };

/**
 * Where a shell (`bash`, `sh`, …) takes its script from: the text after `-c` (options such as
 * `-e`, `-lc`, `-o pipefail` may come first), standard input (no operand, or `-s`), or a file.
 */
function shellScript(args: ShellWord[]): ShellScript {
  let flags = '';
  let index = 0;
  while (index < args.length) {
    const arg = args[index]!;
    if (arg.value === '-o' || arg.value === '+o') {
      index += 2;
      continue;
    }
    if (arg.value === '--') {
      index += 1;
      break;
    }
    if (!/^[-+][A-Za-z]+$/.test(arg.value)) break;
    if (arg.value.startsWith('-')) flags += arg.value.slice(1);
    index += 1;
  }
  const operand = args[index];
  if (flags.includes('c')) {
    if (!operand) return { kind: 'stdin' };
    return operand.dynamic ? { kind: 'dynamic' } : { kind: 'text', text: operand.value };
  }
  if (flags.includes('s') || !operand) return { kind: 'stdin' };
  return { kind: 'file' };
}
