import type { z } from 'zod';

/**
 * A zod failure as one message a reader (a model, a user, a log) can act on: each issue names
 * the field and what was expected, e.g. `limit: expected number, received string`.
 */
export function describeZodError(error: z.ZodError, subject: string): string {
  const lines = error.issues.map((issue) => {
    const where = issue.path.length === 0 ? '(the whole input)' : formatPath(issue.path);
    return `${where}: ${issue.message}`;
  });
  return `${subject} is invalid: ${lines.join('; ')}`;
}

function formatPath(parts: PropertyKey[]): string {
  return parts.map((part, index) => (typeof part === 'number' ? `[${part}]` : `${index === 0 ? '' : '.'}${String(part)}`)).join('');
}
