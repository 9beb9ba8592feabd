/**
 * Run and task ids end up in branch names and folder names, so they are held to a safe alphabet:
 * A-Z a-z 0-9 . _ -, at most 64 characters, and never "..".
 */
const SLUG = /^[A-Za-z0-9._-]{1,64}$/;

export function isSlug(value: string): boolean {
  return SLUG.test(value) && !value.includes('..');
}

export function checkSlug(value: string, what: string): string {
  if (!isSlug(value)) {
    throw new Error(
      `${what} ${JSON.stringify(value)} is not usable in a branch or folder name: use 1-64 characters from A-Z a-z 0-9 . _ - and no "..".`,
    );
  }
  return value;
}
