import os from 'node:os';
import type { AgentLimits } from '../../core/loop/limits.js';
import { groupedNumber } from '../../core/text/groupedNumber.js';
import { describeStatus, type GitSnapshot } from './gitSnapshot.js';

/**
 * The dynamic part of the system prompt: where and when this session runs, what it may spend.
 * Computed once when the session starts and then kept as it is, so the conversation after it
 * stays cacheable; what changes turn by turn (budgets left, git status) goes into the per-turn
 * reminder instead (see turnReminder.ts).
 */
export interface SessionEnvironment {
  cwd: string;
  date: Date;
  git: GitSnapshot;
  /** The job's ports and the scratch folder (TMPDIR), from the shell environment the session gives its commands. */
  shellEnv: Record<string, string>;
  limits: AgentLimits;
}

export function dynamicContextText(env: SessionEnvironment): string {
  const lines = [
    '# Environment (at the start of this session)',
    `- Working directory: ${env.cwd}`,
    `- Platform: ${os.platform()} ${os.arch()}, Node ${process.version}`,
    `- Date: ${localDate(env.date)}`,
  ];
  if (env.git.kind === 'repo') {
    lines.push(`- Git branch: ${env.git.branch} at ${env.git.head}`);
    lines.push(`- Git status:\n${indent(describeStatus(env.git.status))}`);
  } else {
    lines.push(`- Git: ${env.git.reason}`);
  }
  const ports = ['PORT', 'ORCA_PORTS'].filter((name) => env.shellEnv[name]).map((name) => `${name}=${env.shellEnv[name]}`);
  if (ports.length > 0) lines.push(`- Ports leased to this job (use only these): ${ports.join(', ')}`);
  if (env.shellEnv.TMPDIR) {
    lines.push(
      `- Scratch folder (\`$TMPDIR\`): ${env.shellEnv.TMPDIR}. Write scratch files, logs and probes there, never in the repository; Read reads them there.`,
    );
  }
  const { limits } = env;
  lines.push(
    `- Budgets: ${limits.maxTurns} turns, ${groupedNumber(limits.maxTokens)} tokens, $${limits.maxCostUsd.toFixed(2)}, ` +
      `${Math.round(limits.wallClockMs / 60_000)} minutes; each answer up to ${groupedNumber(limits.maxOutputTokens)} tokens.`,
  );
  return lines.join('\n');
}

function localDate(date: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}
