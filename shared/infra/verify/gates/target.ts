import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { CheckEvidence, CheckSpec, TargetObservation } from '../evidence/evidence.js';
import { defineGate, type VerdictOf } from './gate.js';

export const TARGET = defineGate({
  name: 'target',
  checks: 'a server a check talks to runs from this worktree, on a port leased to this job',
  report: 'refuse',
  merge: 'refuse',
});

/**
 * The target gate: a check that talks to a server counts only if that server runs from this
 * worktree and listens on a port leased to this job. Otherwise it may be testing yesterday's
 * build, started from another folder, on somebody else's port.
 *
 * How a check says it talks to a server (either way):
 * - its spec lists the ports: `{ "command": "npm run e2e", "target_ports": [4100] }`;
 * - its command names a loopback address with a port: `localhost:N`, `127.0.0.1:N` (any 127.x),
 *   `0.0.0.0:N`, `[::1]:N`, where N is a number or a shell variable (`$PORT`, `${PORT}`) that the
 *   check's environment defines (orca sets PORT to the job's first leased port).
 * While the check runs, the host looks up who listens on each such port (portOwner.ts): the
 * first process seen, its pid, working folder and command line are kept in the evidence.
 *
 * The gate fails a check when, for any of its ports: nothing listened while it ran; the port is
 * not one of the job's leased ports; the listening process cannot be inspected; or its working
 * folder is not inside the worktree.
 */
const LOOPBACK_PORT =
  /(?:^|[\s/@'"=(])(?:localhost|127(?:\.\d{1,3}){3}|0\.0\.0\.0|\[::1\]):(\d{1,5}|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?)(?!\w)/g;

export function targetPortsOf(
  spec: Pick<CheckSpec, 'command'> & { target_ports?: number[] },
  env: Readonly<Record<string, string | undefined>> = {},
): number[] {
  const ports = new Set<number>(spec.target_ports ?? []);
  for (const [, raw] of spec.command.matchAll(LOOPBACK_PORT)) {
    const value = raw!.startsWith('$') ? env[raw!.replace(/^\$\{?|\}?$/g, '')] : raw;
    const port = Number(value);
    if (Number.isInteger(port) && port > 0 && port <= 65_535) ports.add(port);
  }
  return [...ports].sort((a, b) => a - b);
}

export interface TargetContext {
  /** The worktree the job works in: the server must run from inside it. */
  worktree: string;
  /** The ports leased to this job. */
  leasedPorts: readonly number[];
}

export function targetProblems(evidence: CheckEvidence, context: TargetContext): string[] {
  const root = canonical(context.worktree);
  return evidence.targets.flatMap((target) => problemsOf(evidence.command, target, root, context.leasedPorts));
}

function problemsOf(command: string, target: TargetObservation, root: string, leased: readonly number[]): string[] {
  const problems: string[] = [];
  const who = target.pid === null ? '' : ` (pid ${target.pid}${target.command ? `, \`${target.command}\`` : ''})`;
  if (target.seen === 'never') problems.push(`\`${command}\` talks to port ${target.port}, but nothing listened there while it ran`);
  if (!leased.includes(target.port)) {
    problems.push(
      `\`${command}\` talks to port ${target.port}, which is not leased to this job (its ports: ${leased.length > 0 ? leased.join(', ') : 'none'})`,
    );
  }
  if (target.seen !== 'never' && target.pid === null)
    problems.push(`the process listening on port ${target.port} could not be inspected (another user's?)`);
  if (target.cwd !== null && !inside(canonical(target.cwd), root)) {
    problems.push(`the server on port ${target.port}${who} runs from ${target.cwd}, not from this worktree ${root}`);
  }
  return problems;
}

export function targetGate(evidence: readonly CheckEvidence[], context: TargetContext): VerdictOf<typeof TARGET> {
  const withTargets = evidence.filter((one) => one.targets.length > 0);
  if (withTargets.length === 0) return TARGET.verdict(true, 'no check talks to a server (none names target_ports or a localhost:PORT)');
  const problems = withTargets.flatMap((one) => targetProblems(one, context));
  if (problems.length > 0) return TARGET.verdict(false, problems.join('; '));
  const ports = [...new Set(withTargets.flatMap((one) => one.targets.map((target) => target.port)))];
  return TARGET.verdict(true, `the servers on port(s) ${ports.join(', ')} run from this worktree on ports leased to this job`);
}

function canonical(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return path.resolve(dir); // gone since: compare the path as given
  }
}

function inside(dir: string, root: string): boolean {
  const rel = path.relative(root, dir);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
