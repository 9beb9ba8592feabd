import os from 'node:os';
import { z } from 'zod';
import { expandSkillBody } from '../context/commands/skillArguments.js';
import { projectFolders } from '../context/instructions/projectInstructions.js';
import { skillGrantsIn } from '../context/instructions/skillGrants.js';
import { type SkillLibrary, skillLibraryFor } from '../context/instructions/skills.js';
import { ToolError } from '../core/boundary/toolError.js';
import { defineTool, loadDescription, type ToolContext } from '../core/tool/tool.js';

export const SKILL_TOOL = 'Skill';

export const SkillInputSchema = z.strictObject({
  skill: z.string().trim().min(1, 'name the skill to load').describe('The name of the skill to load, as listed in the context.'),
  args: z.string().optional().describe('Optional arguments for the skill, as a user would type them after its name.'),
});
export type SkillInput = z.infer<typeof SkillInputSchema>;

/**
 * Skill: loads one skill's instructions into the conversation, on demand. The rules:
 * - Only skills in the session's library (SKILL_LIBRARY in ctx.services, set up by the context
 *   assembler; found from the workspace and the user's home when absent) can be loaded; an unknown
 *   name is refused with the names there are. A leading "/" is ignored (`/release` is `release`).
 * - The body is read from disk at this call, so no request before it carries the skill's text.
 * - The skill's `allowed-tools` are granted (SKILL_GRANTS) for the rest of this turn and the next.
 * - The skill is recorded as in use, so an autocompaction puts its instructions back.
 */
export const skillTool = defineTool({
  name: SKILL_TOOL,
  description: loadDescription(import.meta.url, './skill.txt'),
  input: SkillInputSchema,
  level: 'read-only',
  readOnly: true,
  rule: { kind: 'value', field: 'skill' },
  untrustedOutput: false,
  results: { kind: 'instructions' },
  // A skill is instructions to follow: given whole, never cut to a preview and spilled to a file.
  resultLimit: Number.POSITIVE_INFINITY,
  async call(input, ctx) {
    const library = libraryOf(ctx);
    const name = input.skill.replace(/^\//, '');
    const skill = library.get(name);
    if (!skill) {
      const known = library.skills.map((candidate) => candidate.name);
      throw new ToolError(
        known.length === 0
          ? `There is no skill named "${name}": this session has no skills.`
          : `There is no skill named "${name}". The skills you can load are: ${known.join(', ')}.`,
      );
    }
    const body = expandSkillBody(library.body(skill), { args: input.args, skillFile: skill.file, sessionId: ctx.session.id });
    library.markUsed(skill.name);
    const grant = skillGrantsIn(ctx.services).grant(skill.name, skill.allowedTools);
    const allowed =
      grant.rules.length > 0 ? `\nPre-approved while you carry it out (this turn and the next): ${grant.rules.join(', ')}.` : '';
    return {
      content: `Skill "${skill.name}" (${skill.file}). Follow these instructions for this part of the task.${allowed}\n\n${body}`,
      data: { skill: skill.name, file: skill.file, allowedTools: grant.rules, ...(input.args !== undefined ? { args: input.args } : {}) },
    };
  },
});

function libraryOf(ctx: ToolContext): SkillLibrary {
  return skillLibraryFor(ctx.services, () => ({ projectDirs: projectFolders(ctx.workspace.root).folders, homeDir: os.homedir() }));
}
