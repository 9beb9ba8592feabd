import { readFileSync } from 'node:fs';

const cache = new Map<string, string>();

/**
 * Fills a brief (the task message a role's job is given) that lives beside this file (`<name>.md`): `{{key}}` is replaced by
 * `values[key]`. A key the template names but `values` lacks is an error, never an empty hole.
 */
export function fillBrief(name: string, values: Record<string, string>): string {
  let template = cache.get(name);
  if (template === undefined) {
    template = readFileSync(new URL(`./${name}.md`, import.meta.url), 'utf8');
    cache.set(name, template);
  }
  return template
    .replace(/\{\{(\w+)\}\}/g, (_, key: string) => {
      const value = values[key];
      if (value === undefined) throw new Error(`brief ${name}.md needs {{${key}}}`);
      return value;
    })
    .trim();
}

export function bulletList(items: readonly string[], empty = '(none)'): string {
  return items.length === 0 ? empty : items.map((item) => `- ${item}`).join('\n');
}
