import { loadDescription } from '../../core/tool/tool.js';
import type { InjectedCard } from '../../infra/queue/memoryPayload.js';

const INTRO = loadDescription(import.meta.url, './memory-intro.md');

/**
 * The cards chosen for a session, as the section the dynamic part of the system prompt ends
 * with (never the static, cached part: the cards differ by project and task). Undefined when
 * none was chosen: no empty heading is sent.
 */
export function memorySection(cards: readonly InjectedCard[]): string | undefined {
  if (cards.length === 0) return undefined;
  const lines = cards.map((card) => `- [${card.type}] ${card.title} (${card.id}, ${card.updated}): ${card.description}`);
  return `${INTRO}\n\n${lines.join('\n')}`;
}
