import { loadDescription } from '../../core/tool/tool.js';
import type { InstructionFile } from '../instructions/instructionImports.js';
import { describeInstructionFile } from '../instructions/projectInstructions.js';
import { describeRule, type Rule } from '../instructions/rules.js';
import type { SkillInfo } from '../instructions/skills.js';

const HEADER = loadDescription(import.meta.url, './context-message.md');
const SKILLS_INTRO = loadDescription(import.meta.url, './skills-intro.md');

/**
 * The one context message at the start of the conversation: project and user instructions,
 * unconditional rules and the list of skills (name and description only). It is built once per
 * session and kept byte-identical, so it sits in the cached prefix; it is undefined when there is
 * nothing to say.
 */
export function contextMessageText(parts: {
  instructions: InstructionFile[];
  rules: Rule[];
  skills: readonly SkillInfo[];
}): string | undefined {
  const sections: string[] = [];
  for (const file of parts.instructions) sections.push(describeInstructionFile(file));
  for (const rule of parts.rules) if (rule.body !== '') sections.push(describeRule(rule));
  if (parts.skills.length > 0) {
    sections.push(`${SKILLS_INTRO}\n${parts.skills.map((skill) => `- ${skill.name}: ${oneLine(skill.description)}`).join('\n')}`);
  }
  if (sections.length === 0) return undefined;
  return `<system-reminder>\n${HEADER}\n\n${sections.join('\n\n---\n\n')}\n</system-reminder>`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
