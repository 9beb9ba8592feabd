import { parseShellCommand, type ShellNode } from './shellParser.js';

type Node = ShellNode;

/** Redirections of a command's own output (`> log`, `>> log`, `>| log`, `2>&1`, `>&2`): they change where it prints, not what it is. */
const OUTPUT_OPS = new Set(['great', 'dgreat', 'clobber', 'greatand']);

/**
 * The stages of a command that is one pipeline (`npm test 2>&1 | tail -5`, or one simple
 * command), each as written, without the redirections of its own output and with whitespace
 * runs made one space: `["npm test", "tail -5"]`. What Bash's `PIPESTATUS` reports lines up with
 * them, stage by stage. Anything else (`a && b | c`, `a; b`, a loop) or anything the parser
 * cannot read has no stages: undefined.
 */
export function pipelineStages(command: string): string[] | undefined {
  let ast: Node;
  try {
    ast = parseShellCommand(command);
  } catch {
    return undefined;
  }
  const top = ast.commands ?? [];
  if (top.length !== 1) return undefined;
  const only = top[0]!;
  const stages = only.type === 'Pipeline' ? (only.commands ?? []) : only.type === 'Command' ? [only] : undefined;
  if (!stages || stages.length === 0) return undefined;
  const texts: string[] = [];
  for (const stage of stages) {
    if (!stage.loc) return undefined;
    texts.push(stageText(command, stage));
  }
  return texts;
}

function stageText(source: string, stage: Node): string {
  const start = stage.loc!.start.char;
  const end = stage.loc!.end.char + 1;
  const cuts =
    stage.type === 'Command'
      ? [...(stage.prefix ?? []), ...(stage.suffix ?? [])]
          .filter((part) => part.type === 'Redirect' && isOwnOutput(part) && part.loc)
          .map((part) => [part.loc!.start.char, part.loc!.end.char + 1] as const)
          .sort((a, b) => a[0] - b[0])
      : [];
  let text = '';
  let at = start;
  for (const [from, to] of cuts) {
    text += source.slice(at, from);
    at = to;
  }
  text += source.slice(at, end);
  return text.replace(/\s+/g, ' ').trim();
}

function isOwnOutput(redirect: Node): boolean {
  const op = typeof redirect.op === 'object' ? redirect.op.type : undefined;
  if (op === undefined || !OUTPUT_OPS.has(op)) return false;
  const fd = redirect.numberIo?.text;
  return fd === undefined || fd === '1' || fd === '2';
}
