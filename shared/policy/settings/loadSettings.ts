import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeZodError } from '../../core/boundary/zodIssues.js';
import { type SettingsFile, SettingsFileSchema } from './settingsSchema.js';

/**
 * Where settings come from, most specific first: the user's own overrides for this project, the
 * project's shared file, the user's settings for every project. Rules from all three apply.
 */
export const SETTINGS_SCOPES = ['local', 'project', 'user'] as const;
export type SettingsScope = (typeof SETTINGS_SCOPES)[number];

export interface SettingsSource {
  scope: SettingsScope;
  /** Absolute path of the file. */
  file: string;
  /** How decisions and errors name the file: `.claude/settings.json`, or the user file's full path. */
  label: string;
  /** The file's JSON as written, for readers of keys this schema does not check (the hooks layer). */
  raw: Record<string, unknown>;
  settings: SettingsFile;
}

export interface LoadedSettings {
  projectRoot: string;
  /** The files that exist, in SETTINGS_SCOPES order. */
  sources: SettingsSource[];
}

export interface LoadSettingsOptions {
  projectRoot: string;
  /** The user's Claude folder; see `userClaudeDir` for the default. */
  userClaudeDir?: string;
  env?: NodeJS.ProcessEnv;
}

/** A settings file that cannot be used: the message names the file and what is wrong in it. */
export class SettingsError extends Error {
  override readonly name = 'SettingsError';
}

/**
 * The user's Claude folder: `ORCA_USER_CLAUDE_DIR` (for tests and for running orca with other
 * settings than Claude Code's), then Claude Code's own `CLAUDE_CONFIG_DIR`, then `~/.claude`.
 */
export function userClaudeDir(env: NodeJS.ProcessEnv = process.env): string {
  const chosen = env.ORCA_USER_CLAUDE_DIR || env.CLAUDE_CONFIG_DIR;
  if (chosen) return path.resolve(chosen);
  return path.join(env.HOME || os.homedir(), '.claude');
}

/** Reads every settings file that exists. A missing file is normal; a broken one throws a SettingsError. */
export function loadSettings(options: LoadSettingsOptions): LoadedSettings {
  const projectRoot = path.resolve(options.projectRoot);
  const userDir = options.userClaudeDir ? path.resolve(options.userClaudeDir) : userClaudeDir(options.env);
  const files: Record<SettingsScope, { file: string; label: string }> = {
    local: { file: path.join(projectRoot, '.claude', 'settings.local.json'), label: '.claude/settings.local.json' },
    project: { file: path.join(projectRoot, '.claude', 'settings.json'), label: '.claude/settings.json' },
    user: { file: path.join(userDir, 'settings.json'), label: path.join(userDir, 'settings.json') },
  };
  const sources: SettingsSource[] = [];
  for (const scope of SETTINGS_SCOPES) {
    const { file, label } = files[scope];
    const source = readSource(scope, file, label);
    if (source) sources.push(source);
  }
  return { projectRoot, sources };
}

function readSource(scope: SettingsScope, file: string, label: string): SettingsSource | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SettingsError(`${label} cannot be read: ${(error as Error).message}`);
  }
  return parseSettingsSource(scope, file, label, text);
}

/** A settings file's text, checked: the same errors as a file read from disk (trusted configuration sends the text). */
export function parseSettingsSource(scope: SettingsScope, file: string, label: string, text: string): SettingsSource {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new SettingsError(`${label} is not valid JSON: ${jsonProblem(error as Error, text)}. Fix the file and run again.`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new SettingsError(`${label} must hold a JSON object ({ … }) at the top level.`);
  }
  const parsed = SettingsFileSchema.safeParse(raw);
  if (!parsed.success) throw new SettingsError(`${describeZodError(parsed.error, label)}. Fix the file and run again.`);
  return { scope, file, label, raw: raw as Record<string, unknown>, settings: parsed.data };
}

/**
 * JSON.parse's message on one line, with the line and column when it gives a character position
 * (for an unexpected token it quotes the text around it instead).
 */
function jsonProblem(error: Error, text: string): string {
  const message = error.message.replace(/\s+/g, ' ');
  const position = /at position (\d+)/.exec(message)?.[1];
  if (position === undefined) return message;
  const before = text.slice(0, Number(position));
  const line = before.split('\n').length;
  const column = Number(position) - before.lastIndexOf('\n');
  return `${message} (line ${line}, column ${column})`;
}
