import { z } from 'zod';
import { checkDraft } from '../context/memory/admission.js';
import { sessionMemoryOf } from '../context/memory/memoryService.js';
import { relationTo } from '../context/memory/similarity.js';
import { ToolError } from '../core/boundary/toolError.js';
import { defineTool, loadDescription } from '../core/tool/tool.js';
import { MEMORY_TYPES } from '../infra/queue/memoryPayload.js';

export const REMEMBER_TOOL = 'Remember';

export const RememberInputSchema = z.strictObject({
  type: z.enum(MEMORY_TYPES, { error: `type must be one of ${MEMORY_TYPES.join(', ')}` }).describe('What kind of knowledge this is'),
  title: z.string().trim().min(1, 'give the card a title').max(120).describe('The subject in a few words'),
  description: z.string().trim().min(1, 'say the fact or the rule').max(600).describe('The fact or the rule, in 1-3 sentences'),
  scope: z
    .enum(['project', 'user'])
    .optional()
    .describe('"project" (this repository only) or "user" (every project); default: "user" for user cards, else "project"'),
  confidence: z.number().min(0).max(1).optional().describe('How sure it is, from 0 to 1 (default 0.8)'),
});
export type RememberInput = z.infer<typeof RememberInputSchema>;

/**
 * Remember: an agent's request to keep a card across runs. The rules:
 * - Only a session with memory (ctx.services.memory: the coordinator's and Worker agents of a
 *   run) has it; elsewhere it is refused as unavailable.
 * - The admission rules (../memory/admission.ts) are the host's: a card that breaks any is
 *   refused with every reason, the absolute date for a relative one included, and nothing is kept.
 * - An admitted card is handed back with the job and filed by the coordinator
 *   (../memory/fileCard.ts): added, or updating the card of the same subject, or, when it
 *   contradicts one, queued for the user (`orca memory review`) and not written. A card that
 *   contradicts one this session was given is said to be so at once.
 * - A second card on the subject of one remembered earlier in the session replaces it.
 */
export const rememberTool = defineTool({
  name: REMEMBER_TOOL,
  description: loadDescription(import.meta.url, './remember.txt'),
  input: RememberInputSchema,
  // Memory is not the workspace: any mode may keep a card.
  level: 'read-only',
  readOnly: false,
  async call(input, ctx) {
    const memory = sessionMemoryOf(ctx.services);
    const { scope: runScope, today, source, given } = memory.options;
    const scope = (input.scope ?? (input.type === 'user' ? 'user' : 'project')) === 'user' ? 'user' : runScope;
    const admission = checkDraft({ ...input, scope, confidence: input.confidence ?? 0.8, source }, { today });
    if (!admission.ok) {
      throw new ToolError(
        `Not remembered:\n${admission.refusals.map((refusal) => `- ${refusal}`).join('\n')}\nFix the card and call Remember again, or keep nothing.`,
      );
    }
    const { draft } = admission;
    const earlier = relationTo(
      draft,
      memory.remembered.map((card, index) => ({ ...card, id: `#${index}`, updated: today })),
    );
    memory.keep(draft, earlier.kind === 'new' ? undefined : Number(earlier.card.id.slice(1)));
    const relation = relationTo(draft, given);
    const where = scope === 'user' ? 'for every project of this user' : `for ${scope.replace(/^project:/, '')}`;
    const content =
      relation.kind === 'conflict'
        ? `Not written: it contradicts ${relation.card.id} "${relation.card.title}" (${relation.why}). It goes to the user to decide (orca memory review); act on neither card as settled until then.`
        : relation.kind === 'new'
          ? `Kept "${draft.title}" (${draft.type}, ${where}). orca files it when this job ends.`
          : `Kept "${draft.title}" (${draft.type}, ${where}): it ${relation.kind === 'update' ? 'updates' : 'confirms'} ${relation.card.id} "${relation.card.title}" when this job ends.`;
    return { content, data: { card: draft, relation: relation.kind, ...(relation.kind === 'new' ? {} : { card_id: relation.card.id }) } };
  },
});
