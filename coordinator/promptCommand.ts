import path from 'node:path';
import { formatRoleModelText, roleModelText } from '../roles/modelText.js';
import { findRole } from '../roles/roleCatalog.js';
import { UserError } from './repoCheck.js';

/**
 * `orca prompt --role <role>`: prints what a role's model is told, as far as it depends on the
 * role alone (roles/modelText.ts): its static system prompt, its tools' texts and input schemas
 * in the order they are sent, and the messages orca may send it during a session; as text, or
 * one JSON object with `--json`. A custom role is read from the repository's `.claude/agents/`.
 * Needs no Redis and no model.
 */
export function promptCommand(options: { role: string; repo: string; json: boolean }): number {
  let found: ReturnType<typeof findRole>;
  try {
    found = findRole(path.resolve(options.repo), options.role);
  } catch (error) {
    throw new UserError(error instanceof Error ? error.message : String(error));
  }
  for (const warning of found.warnings) process.stderr.write(`orca: ${warning}\n`);
  const text = roleModelText(found.role);
  process.stdout.write(options.json ? `${JSON.stringify(text, null, 2)}\n` : formatRoleModelText(text));
  return 0;
}
