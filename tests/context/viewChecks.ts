import { expect } from 'vitest';
import type { Message } from '../../shared/core/model/message.js';

/** The Messages API's structural rules: user first, roles alternating, every tool_use answered next. */
export function expectValidConversation(messages: Message[]): void {
  expect(messages[0]?.role).toBe('user');
  messages.forEach((message, index) => {
    if (index > 0) expect(message.role).not.toBe(messages[index - 1]!.role);
    expect(message.content.length).toBeGreaterThan(0);
    if (message.role !== 'assistant') return;
    const uses = message.content.flatMap((block) => (block.type === 'tool_use' ? [block.id] : []));
    const next = messages[index + 1];
    const results = next?.content.flatMap((block) => (block.type === 'tool_result' ? [block.tool_use_id] : [])) ?? [];
    if (next) expect(results.sort()).toEqual([...uses].sort());
    // tool_result blocks come first in their user message.
    if (next) {
      const firstText = next.content.findIndex((block) => block.type !== 'tool_result');
      const lastResult = next.content.findLastIndex((block) => block.type === 'tool_result');
      if (firstText >= 0) expect(lastResult).toBeLessThan(firstText);
    }
  });
  const allUses = new Set(messages.flatMap((message) => message.content.flatMap((block) => (block.type === 'tool_use' ? [block.id] : []))));
  for (const message of messages) {
    for (const block of message.content) if (block.type === 'tool_result') expect(allUses.has(block.tool_use_id)).toBe(true);
  }
}
