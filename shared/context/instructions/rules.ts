import { readFileSync } from 'node:fs';
import path from 'node:path';
import picomatch from 'picomatch';
import { globSync } from 'tinyglobby';
import { z } from 'zod';
import { describeZodError } from '../../core/boundary/zodIssues.js';
import { parseFrontMatter } from './frontMatter.js';
import { stripHtmlComments } from './markdownText.js';

/**
 * Rules: `.claude/rules/**\/*.md` in each project folder from the repository root down to the
 * working folder, and in the user's `~/.claude/rules/`.
 * - Without `paths` in the front matter a rule is unconditional: it loads with the project
 *   instructions, in the context message.
 * - With `paths` (a comma list or a YAML list of globs; braces allowed: `src/**\/*.{ts,tsx}`) it is
 *   conditional: after a successful Read of a file that matches, its body is shown before the
 *   next model call, once per session (conditionalRules.ts does the once).
 * - Globs are relative to the folder holding the rule's `.claude` (the repository root for the
 *   user's rules). A file outside that folder matches nothing.
 */
export interface Rule {
  /** Absolute path of the rule file. */
  file: string;
  /** The folder its globs are relative to. */
  baseDir: string;
  /** Undefined for an unconditional rule. */
  patterns?: string[];
  body: string;
}

export interface LoadedRules {
  rules: Rule[];
  /** Rule files that could not be used, each with why: shown to the operator, not the model. */
  problems: string[];
}

const RuleFrontMatterSchema = z.looseObject({
  paths: z.union([z.string(), z.array(z.string()), z.null()]).optional(),
});

export function loadRules(options: { projectDirs: string[]; homeDir: string; repoRoot: string }): LoadedRules {
  const out: LoadedRules = { rules: [], problems: [] };
  const sources = [
    { dir: path.join(options.homeDir, '.claude', 'rules'), baseDir: options.repoRoot },
    ...options.projectDirs.map((dir) => ({ dir: path.join(dir, '.claude', 'rules'), baseDir: dir })),
  ];
  for (const source of sources) {
    const files = globSync('**/*.md', { cwd: source.dir, absolute: true, dot: true }).sort();
    for (const file of files) {
      try {
        out.rules.push(readRule(file, source.baseDir));
      } catch (error) {
        out.problems.push(error instanceof Error ? error.message : String(error));
      }
    }
  }
  return out;
}

export function readRule(file: string, baseDir: string): Rule {
  const { data, body } = parseFrontMatter(readFileSync(file, 'utf8'), file);
  const parsed = RuleFrontMatterSchema.safeParse(data);
  if (!parsed.success) throw new Error(describeZodError(parsed.error, `the front matter of ${file}`));
  const raw = parsed.data.paths;
  const patterns = raw == null ? undefined : typeof raw === 'string' ? splitPatternList(raw) : raw.flatMap(splitPatternList);
  return {
    file,
    baseDir,
    patterns: patterns && patterns.length > 0 ? patterns.map(normalizePattern) : undefined,
    body: stripHtmlComments(body).trim(),
  };
}

/** `a/*.ts, b/**\/*.{ts,tsx}` → two globs: commas inside braces belong to the glob. */
export function splitPatternList(list: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of list) {
    if (char === '{') depth += 1;
    if (char === '}') depth = Math.max(0, depth - 1);
    if (char === ',' && depth === 0) {
      out.push(current);
      current = '';
      continue;
    }
    current += char;
  }
  out.push(current);
  return out.map((item) => item.trim().replace(/^["']|["']$/g, '')).filter((item) => item !== '');
}

function normalizePattern(pattern: string): string {
  return pattern.replace(/^\.\//, '').replace(/^\//, '');
}

/** Whether a conditional rule applies to the file at `absPath`. */
export function ruleMatches(rule: Rule, absPath: string): boolean {
  if (!rule.patterns) return false;
  const rel = path.relative(rule.baseDir, absPath);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return false;
  return picomatch(rule.patterns, { dot: true })(rel.split(path.sep).join('/'));
}

/** A rule as the model is shown it. */
export function describeRule(rule: Rule, trigger?: string): string {
  const scope = rule.patterns ? ` (applies to ${rule.patterns.join(', ')})` : '';
  const why = trigger ? `\nIt applies because you read ${trigger}.` : '';
  return `Rule from ${rule.file}${scope}:${why}\n\n${rule.body}`;
}
