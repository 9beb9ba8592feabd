import path from 'node:path';
import type { ToolFacts } from '../../core/tool/toolFacts.js';
import type { CallPart, CallParts, PartsContext } from './callPart.js';
import { familyRuleName } from './ruleMatch.js';
import { analyzeBash } from './shell/bashAnalysis.js';
import { isReadOnlyShellCommand } from './shell/bashLevel.js';
import { destructiveReason } from './shell/destructiveCommands.js';
import type { ShellCommand, ShellWrite } from './shell/shellTypes.js';
import { wordShape } from './shell/wordShape.js';
import type { WriteTarget } from './shell/writeCollector.js';
import { commandWrites } from './shell/writeTargets.js';
import { guardedOf, type WriteBounds, writtenPaths } from './workspaceWrites.js';

type Refusal = { refusal: { by: string; reason: string } };

/** The shell tool a command is a call of, and the tool what it writes is judged as (its rule's `writesAs`). */
export interface ShellTools {
  shell: ToolFacts;
  writesAs: ToolFacts;
}

const UNSANDBOXED = 'Bash runs without the sandbox here, so nothing else would stop it writing outside the workspace';

/**
 * What a shell command (a Bash call) touches: each simple command (for command rules, the read-only list and the
 * destructive list), each file a redirection writes, and each path a command writes by its
 * arguments (`cp x DEST`, `touch f`, `tar -x -C DIR`, …). Writes are checked whether or not the
 * sandbox is on; a write outside the workspace is refused, one on a guarded path needs an allow
 * rule naming it. Without the sandbox a command may write only where its words say, so what
 * cannot be told before it runs (`cp x $DEST`, a command after `cd` to an unknown or outside
 * folder that is not read-only) is refused too; in the sandbox bwrap stops those writes itself.
 */
export function bashParts(tools: ShellTools, command: string, context: PartsContext): CallParts {
  const summary = command;
  const refuse = (found: Refusal): CallParts => ({ refusal: found.refusal, parts: [], denyOnly: [], summary });
  const analysis = analyzeBash(command);
  if (!analysis.ok) return refuse(refusal('bash-analysis', `the command cannot be checked: ${analysis.reason}`));
  const parts: CallPart[] = analysis.commands.map((found) => commandPart(tools.shell, found, context));
  const denyOnly: CallPart[] = [];
  for (const write of analysis.writes) {
    const outcome = redirectPart(tools.writesAs, write, context);
    if (outcome === undefined) continue;
    if ('refusal' in outcome) return refuse(outcome);
    parts.push(outcome);
  }
  // A command's own redirections are opened before it runs, so they cannot pass through a link it makes.
  const alone = analysis.commands.length === 1;
  for (const found of analysis.commands) {
    const outcome = argumentWrites(tools.writesAs, found, context, alone);
    if ('refusal' in outcome) return refuse(outcome);
    // Rules and the mode judge the command; its writes add only Edit deny and ask rules, and guarded paths.
    for (const part of outcome) (part.needsNamedAllow ? parts : denyOnly).push(part);
  }
  denyOnly.push({ tool: tools.shell, subject: { kind: 'command', texts: [command.trim()] }, label: command.trim(), level: 'read-only' });
  return { parts, denyOnly, summary };
}

function commandPart(shell: ToolFacts, found: ShellCommand, context: PartsContext): CallPart {
  const written = textOf(found);
  const runs = found.argv.map((word) => word.raw).join(' ');
  const part: CallPart = {
    tool: shell,
    subject: { kind: 'command', texts: [...new Set([written, runs])] },
    label: written,
    level: isReadOnlyShellCommand(found) ? 'read-only' : context.shellLevel,
  };
  // A command that cannot be identified might be a destructive one: it needs the same named allow.
  const destructive = destructiveReason(found);
  const concern = destructive ?? found.unclear;
  if (concern) {
    const by = destructive ? 'destructive' : 'bash-analysis';
    part.needsNamedAllow = { by, reason: `\`${written}\`: ${concern}`, example: `${shell.name}(${runs})` };
  }
  return part;
}

/** A redirection as a write of its target, checked like a Write of that path; undefined when it writes nowhere. */
function redirectPart(writesAs: ToolFacts, write: ShellWrite, context: PartsContext): CallPart | Refusal | undefined {
  const target = write.target;
  const shown = `${write.op} ${target.raw}`;
  if (target.dynamic || /[*?[]/.test(target.value)) {
    return refusal('bash-analysis', `cannot tell which file \`${shown}\` writes until it runs; name the file literally`);
  }
  const found = writtenPaths({ value: target.value, cwd: write.cwd }, bounds(context));
  switch (found.kind) {
    case 'nowhere':
      return undefined;
    case 'unknowable':
      return refusal(
        'bash-analysis',
        `cannot tell which folder \`${shown}\` writes into after the \`cd\` before it; use an absolute path or drop the cd`,
      );
    case 'refused':
      return refusal('workspace', `\`${shown}\`: ${found.reason}`);
    case 'paths':
      return writePart(writesAs, shown, found.paths, found.relatives);
  }
}

/** The paths a command writes by its arguments, and the folder it runs in, as parts or a refusal. */
function argumentWrites(writesAs: ToolFacts, found: ShellCommand, context: PartsContext, alone: boolean): CallPart[] | Refusal {
  const shown = textOf(found);
  const writes = commandWrites(found);
  if (writes.unknown && !context.sandboxed) {
    return refusal(
      'bash-analysis',
      `cannot tell which files \`${shown}\` writes until it runs: ${writes.unknown}. ${UNSANDBOXED}; name each path it writes literally, inside the workspace`,
    );
  }
  const parts: CallPart[] = [];
  for (const target of writes.targets) {
    const verdict = judged(target, context);
    if (verdict.kind === 'refused') return refusal('workspace', `\`${shown}\`: ${verdict.reason}`);
    if (verdict.kind === 'unknowable' && !context.sandboxed) {
      return refusal(
        'bash-analysis',
        `cannot tell where \`${shown}\` writes ${target.path.raw}: ${verdict.why}. ${UNSANDBOXED}; name the path literally, inside the workspace, from a folder that is known`,
      );
    }
    if (verdict.kind === 'paths') parts.push(writePart(writesAs, shown, verdict.paths, target.unguarded ? [] : verdict.relatives));
  }
  for (const source of writes.hardLinked) {
    const verdict = judged(source, context);
    if (verdict.kind === 'refused') {
      return refusal(
        'workspace',
        `\`${shown}\` would hard-link ${source.path.raw}, and writing through the link would change that file: ${verdict.reason} Copy the file instead`,
      );
    }
  }
  // A link made now is only followed by the checks of later calls: the rest of this call would write through it unseen.
  if (!context.sandboxed && !alone) {
    for (const lead of writes.linksTo) {
      const verdict = judged(lead, context);
      if (verdict.kind === 'refused' || verdict.kind === 'unknowable') {
        return refusal(
          'workspace',
          `\`${shown}\` makes a link to ${lead.path.raw}, which may lead outside the workspace, and ${UNSANDBOXED} when the rest of this call writes through it; make the link in a Bash call of its own`,
        );
      }
    }
  }
  const place = runningPlace(found, context);
  return place ?? parts;
}

/** Without the sandbox, a command that is not read-only writes where it runs: that folder must be in the workspace. */
function runningPlace(found: ShellCommand, context: PartsContext): Refusal | undefined {
  if (context.sandboxed || isReadOnlyShellCommand(found)) return undefined;
  const shown = textOf(found);
  if (found.cwd === undefined) {
    return refusal(
      'bash-analysis',
      `cannot tell which folder \`${shown}\` runs in (a cd, source, function or find -execdir before it leaves that unknown), and ${UNSANDBOXED} wherever that is; cd to a folder named literally, inside the workspace`,
    );
  }
  for (const cwd of found.cwd) {
    const folder = path.resolve(context.workspace.root, cwd);
    const there = writtenPaths({ value: folder, cwd: ['.'] }, bounds(context));
    if (there.kind === 'refused') {
      return refusal(
        'workspace',
        `\`${shown}\` runs in ${folder}, and ${UNSANDBOXED} there: ${there.reason} Run it from inside the workspace`,
      );
    }
  }
  return undefined;
}

function judged(target: WriteTarget, context: PartsContext) {
  const glob = wordShape(target.path).kind === 'glob';
  return writtenPaths({ value: target.path.value, cwd: target.cwd, glob, entry: target.entry }, bounds(context));
}

function writePart(writesAs: ToolFacts, label: string, paths: string[], relatives: string[]): CallPart {
  const part: CallPart = { tool: writesAs, subject: { kind: 'path', paths }, label, level: 'workspace-write' };
  const guarded = guardedOf(relatives);
  if (guarded) {
    part.needsNamedAllow = { by: 'guarded-path', reason: guarded.reason, example: `${familyRuleName(writesAs)}(${guarded.relative})` };
  }
  return part;
}

function bounds(context: PartsContext): WriteBounds {
  return { workspace: context.workspace, writableOutside: context.writableOutside };
}

function textOf(found: ShellCommand): string {
  return found.written.map((word) => word.raw).join(' ');
}

function refusal(by: string, reason: string): Refusal {
  return { refusal: { by, reason } };
}
