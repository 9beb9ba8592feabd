import { staticSystemPrompt } from '../shared/context/prompt/staticPrompt.js';
import { NEAR_END } from '../shared/context/prompt/turnReminder.js';
import { LIMIT_REACHED } from '../shared/core/loop/query.js';
import type { ToolSpec } from '../shared/core/model/model.js';
import { ToolRegistry } from '../shared/core/tool/registry.js';
import { RECEIVED, reportTool } from '../shared/core/tool/report.js';
import { REPORT_REMINDER } from '../shared/infra/tasks/reportReminder.js';
import { NUDGE } from '../shared/infra/tasks/verificationNudge.js';
import { REFUSAL } from '../shared/infra/verify/checks/reportGate.js';
import { toolsNamed } from '../shared/tools/catalog.js';
import { claimsReader, outputSchema } from './outputs.js';
import type { RoleDefinition } from './role.js';

/** A message orca may send the model during a session, and when. */
export interface SessionMessage {
  when: string;
  text: string;
}

/**
 * What a role's model is told, as far as it depends on the role alone: the static system prompt
 * (the first system block, cached), the tools in the order they are sent (the cached tool prefix,
 * Report last), and the messages orca may send it during a session. Everything else a request
 * holds (the environment block, the project's instructions, skills, memory, the task) is added per
 * session after this prefix. `orca prompt --role <name>` prints it (promptCommand.ts); the
 * harness builds the same prompt and tools from the same role (staticSystemPrompt, toolsNamed).
 */
export interface RoleModelText {
  role: string;
  system: string;
  tools: ToolSpec[];
  messages: SessionMessage[];
}

export function roleModelText(role: RoleDefinition): RoleModelText {
  const registry = new ToolRegistry([...toolsNamed(role.tools), reportTool(outputSchema(role.output))]);
  const messages: SessionMessage[] = [
    { when: 'the reply to a Report that fits the schema, before orca has checked it', text: RECEIVED },
    { when: 'the first time the agent ends a turn without a tool call (a second time ends the session, failed)', text: REPORT_REMINDER },
    { when: 'in the per-turn budget reminder, in the last 5 turns or the last 10% of the tokens, money or time', text: NEAR_END },
    {
      when: 'once, when a budget or the turn limit is reached: one last turn follows, then the session ends',
      text: LIMIT_REACHED,
    },
  ];
  if (claimsReader(role.output)) {
    messages.push({ when: "after the Report's reply, when the gates refuse it ({reasons}: one line per failed gate)", text: REFUSAL });
  }
  if (role.output === 'worker') {
    messages.push({ when: 'when the agent ends with 3 or more tasks completed and nothing verified (at most twice)', text: NUDGE });
  }
  return { role: role.name, system: staticSystemPrompt(role.prompt), tools: registry.specs(), messages };
}

/** The dump as text: what `orca prompt --role <name>` prints, and what tests/fixtures/prompts/<role>.txt pins. */
export function formatRoleModelText(text: RoleModelText): string {
  const out: string[] = [
    `# What the ${text.role} model is told`,
    '',
    'The static part of every request of this role: byte for byte the same in every session, the cached prefix.',
    'After it, each session adds the environment (working folder, date, git branch and status, ports, budgets),',
    "the project's CLAUDE.md files and rules, the skills list and memory, then the task; each turn ends with a",
    'reminder of what is left of the budgets.',
    '',
    '## System prompt (first system block)',
    '',
    text.system,
    '',
    `## Tools (${text.tools.length}, in the order they are sent)`,
  ];
  for (const tool of text.tools) {
    out.push('', `### ${tool.name}`, '', tool.description, '', 'Input schema:', '', JSON.stringify(tool.input_schema, null, 2));
  }
  out.push('', '## What orca may say during a session');
  for (const message of text.messages) out.push('', `### ${message.when}`, '', message.text);
  return `${out.join('\n')}\n`;
}
