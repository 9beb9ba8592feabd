import path from 'node:path';
import { type CommitView, repoPath, shortSha } from './commitView.js';

/**
 * An Explore finding checked against the base commit before the Plan agent sees it: the first
 * kind of hallucination (a file, a function, a line that is not there) stops here. A finding is
 * verified when
 * - its `path:line` (or `path:start-end`) names a file of the base commit (relative, or absolute
 *   inside the agent's worktree or the repository),
 * - the lines are within that file, and
 * - every word the fact puts in code form occurs within NEAR_LINES lines of the cited ones: each
 *   backticked span (whole, or else every identifier in it), and outside backticks each
 *   identifier-shaped word (camelCase, snake_case, CONSTANT_CASE, a call `name(`). A path in code
 *   form counts when the base commit has it (or it occurs near the line).
 * A finding that fails any of these is unverified, with the first reason found.
 */
export const NEAR_LINES = 5;

export interface Finding {
  fact: string;
  evidence: string;
}

export interface CheckedFinding extends Finding {
  verified: boolean;
  /** Why it is not verified. */
  reason?: string;
}

export interface CodeTerm {
  text: string;
  kind: 'code' | 'identifier' | 'path';
}

/** camelCase words that are names of things, not code: a fact may say "written in TypeScript". */
const NOT_CODE = new Set([
  'JavaScript',
  'TypeScript',
  'CoffeeScript',
  'GitHub',
  'GitLab',
  'BitBucket',
  'macOS',
  'iOS',
  'iPadOS',
  'watchOS',
  'tvOS',
  'iPhone',
  'iPad',
  'PostgreSQL',
  'MySQL',
  'MariaDB',
  'MongoDB',
  'DynamoDB',
  'GraphQL',
  'WebSocket',
  'WebSockets',
  'WebAssembly',
  'OAuth',
  'PowerShell',
  'VSCode',
  'YouTube',
  'LinkedIn',
  'PayPal',
  'DevOps',
  'NuGet',
  'PyPI',
  'CommonJS',
  'NodeJS',
  'NextJS',
  'README',
]);

const SOURCE_EXTENSIONS =
  /\.(?:[cm]?[jt]sx?|json|md|py|go|rs|java|kt|c|h|cc|cpp|hpp|cs|rb|php|swift|ya?ml|toml|ini|sh|bash|css|scss|html|vue|svelte|sql|txt|lock|xml|gradle)$/;

export function checkFinding(finding: Finding, view: CommitView, roots: readonly string[]): CheckedFinding {
  const fail = (reason: string): CheckedFinding => ({ ...finding, verified: false, reason });
  const cited = /^(.*):(\d+)(?:-(\d+))?$/.exec(finding.evidence.trim());
  if (!cited) return fail(`the evidence ${finding.evidence} is not path:line`);
  const where = repoPath(cited[1]!, roots);
  if ('problem' in where) return fail(where.problem);
  const file = where.path;
  const first = Number(cited[2]);
  const last = cited[3] === undefined ? first : Number(cited[3]);
  const at = `the base commit ${shortSha(view.commit)}`;
  const stored = view.file(file);
  if (!stored) return fail(view.isFolder(file) ? `${file} is a folder at ${at}, not a file` : `${file} does not exist at ${at}`);
  if (!Array.isArray(stored.lines)) return fail(`${stored.lines.problem}: a line of it cannot be cited`);
  const lines = stored.lines;
  if (first < 1) return fail(`line ${first} of ${file} does not exist: lines count from 1`);
  if (last < first) return fail(`the range ${first}-${last} of ${file} runs backwards`);
  if (last > lines.length) {
    return fail(`${file} has ${lines.length} line${lines.length === 1 ? '' : 's'} at ${at}; line ${last} is past its end`);
  }
  const from = Math.max(1, first - NEAR_LINES);
  const to = Math.min(lines.length, last + NEAR_LINES);
  const window = lines.slice(from - 1, to).join('\n');
  const missing = codeTerms(finding.fact).filter((term) => !termOccurs(term, window, file, view));
  if (missing.length > 0) {
    const names = missing.map((term) => `\`${term.text}\``).join(', ');
    return fail(
      `${names} ${missing.length === 1 ? 'does' : 'do'} not occur in ${file} lines ${from}–${to} (within ${NEAR_LINES} lines of the cited ${first === last ? `line ${first}` : `lines ${first}–${last}`}) at ${at}`,
    );
  }
  return { ...finding, verified: true };
}

/** The words a fact puts in code form: backticked spans, and identifier-shaped words outside them. */
export function codeTerms(fact: string): CodeTerm[] {
  const terms: CodeTerm[] = [];
  const seen = new Set<string>();
  const add = (text: string, kind: CodeTerm['kind']) => {
    const key = `${kind}\0${text}`;
    if (text === '' || seen.has(key)) return;
    seen.add(key);
    terms.push({ text, kind });
  };
  for (const span of fact.matchAll(/`([^`\n]+)`/g)) {
    const text = span[1]!.trim();
    add(text, looksLikePath(text) ? 'path' : 'code');
  }
  const prose = fact.replace(/`[^`\n]*`/g, ' ');
  for (const word of prose.matchAll(/(?<![\w$./-])((?:\.{1,2}\/)?[\w$@-]+(?:[./][\w$@-]+)+|[A-Za-z_$][\w$]*)(\()?/g)) {
    const text = word[1]!.replace(/[.,;:]+$/, '');
    if (looksLikePath(text)) add(text, 'path');
    else if (/^[A-Za-z_$][\w$]*$/.test(text) && isIdentifier(text, word[2] !== undefined)) add(text, 'identifier');
  }
  return terms;
}

/** Names of projects that look like file names. */
const PROJECT_NAMES = /^(?:node|vue|next|nuxt|express|deno|three|d3|chart|moment|ember|backbone|angular|react|socket\.io|p5)\.js$/i;

function looksLikePath(text: string): boolean {
  if (/\s/.test(text) || PROJECT_NAMES.test(text)) return false;
  return (/\//.test(text) && /^[\w.@$/-]+$/.test(text) && !/^\/\//.test(text)) || SOURCE_EXTENSIONS.test(text);
}

function isIdentifier(word: string, called: boolean): boolean {
  if (NOT_CODE.has(word)) return false;
  if (called) return word.length >= 2;
  if (/[A-Za-z0-9]_[A-Za-z0-9]/.test(word)) return true;
  return /[a-z][A-Z]/.test(word);
}

function termOccurs(term: CodeTerm, window: string, cited: string, view: CommitView): boolean {
  if (term.kind === 'identifier') return wordIn(term.text, window);
  if (squeeze(window).includes(squeeze(term.text))) return true;
  if (term.kind === 'path') return pathExists(term.text, cited, view);
  const identifiers = [...term.text.matchAll(/[A-Za-z_$][\w$]*/g)].map((match) => match[0]).filter((word) => word.length >= 2);
  return identifiers.length > 0 && identifiers.every((word) => wordIn(word, window));
}

/** A path named in a fact: the commit has it, from the root or from the cited file's folder (an import's extension may differ). */
function pathExists(text: string, cited: string, view: CommitView): boolean {
  const candidates = [text, path.posix.join(path.posix.dirname(cited), text)].map((candidate) =>
    path.posix
      .normalize(candidate)
      .replace(/^(\.\/)+/, '')
      .replace(/\/+$/, ''),
  );
  return candidates.some((candidate) => {
    if (view.paths.has(candidate) || view.isFolder(candidate)) return true;
    const stem = candidate.replace(/\.[^./]+$/, '');
    return stem !== candidate && [...view.paths].some((file) => file.replace(/\.[^./]+$/, '') === stem);
  });
}

function wordIn(word: string, text: string): boolean {
  return new RegExp(`(?<![\\w$])${word.replace(/[$]/g, '\\$')}(?![\\w$])`).test(text);
}

function squeeze(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
