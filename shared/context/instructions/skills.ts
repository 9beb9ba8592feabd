import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { describeZodError } from '../../core/boundary/zodIssues.js';
import type { SessionServices } from '../../core/tool/tool.js';
import { parseFrontMatter } from './frontMatter.js';

/**
 * Skills: `.claude/skills/<name>/SKILL.md` in the project folders (repository root down to the
 * working folder; the nearest wins a name clash) and in the user's `~/.claude/skills/`. Only each
 * skill's name and description are listed up front; the body is read from disk when the `Skill`
 * tool loads it, so a skill costs one line of context until it is used. `allowed-tools` (a comma
 * or space list, or a YAML list, of permission rules such as `Bash(git add:*)`) is granted while
 * the skill is active (see skillGrants.ts).
 */
export interface SkillInfo {
  name: string;
  description: string;
  allowedTools: string[];
  /** Absolute path of SKILL.md, as the agent is shown it. */
  file: string;
  /** Where its text really is, when not at `file` (the trusted configuration's copy, read at the base commit). */
  readFrom?: string;
  source: 'project' | 'user' | 'plugin';
}

export const SkillFrontMatterSchema = z.looseObject({
  name: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]*$/, 'letters, digits, ".", "_", ":" and "-" only')
    .optional(),
  description: z.string().optional(),
  'allowed-tools': z.union([z.string(), z.array(z.string()), z.null()]).optional(),
  'disable-model-invocation': z.boolean().optional(),
});

/** One plugin's `skills/` folder, and the plugin's name (its skills' prefix). */
export interface PluginSkills {
  plugin: string;
  dir: string;
}

export interface DiscoveredSkills {
  skills: SkillInfo[];
  problems: string[];
}

export function discoverSkills(options: { projectDirs: string[]; homeDir: string; pluginDirs?: PluginSkills[] }): DiscoveredSkills {
  const out: DiscoveredSkills = { skills: [], problems: [] };
  const roots: Array<{ dir: string; source: SkillInfo['source']; prefix?: string }> = [
    ...[...options.projectDirs].reverse().map((dir) => ({ dir: path.join(dir, '.claude', 'skills'), source: 'project' as const })),
    { dir: path.join(options.homeDir, '.claude', 'skills'), source: 'user' as const },
    // A plugin's skills are named `<plugin>:<skill>`, as in Claude Code.
    ...(options.pluginDirs ?? []).map(({ plugin, dir }) => ({ dir, source: 'plugin' as const, prefix: `${plugin}:` })),
  ];
  for (const root of roots) {
    let entries: string[];
    try {
      entries = listDirs(root.dir);
    } catch (error) {
      out.problems.push(`cannot list skills in ${root.dir}: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    for (const entry of entries) {
      const file = path.join(root.dir, entry, 'SKILL.md');
      if (!isFile(file)) continue;
      try {
        const header = readSkillHeader(file, entry, root.source);
        const skill = header && root.prefix ? { ...header, name: `${root.prefix}${header.name}` } : header;
        if (skill && !out.skills.some((known) => known.name === skill.name)) out.skills.push(skill);
      } catch (error) {
        out.problems.push(error instanceof Error ? error.message : String(error));
      }
    }
  }
  return out;
}

/** A skill's listing, or undefined when it may only be started by the user (never by the model). */
export function readSkillHeader(file: string, dirName: string, source: SkillInfo['source']): SkillInfo | undefined {
  const { data, body } = parseFrontMatter(readFileSync(file, 'utf8'), file);
  const parsed = SkillFrontMatterSchema.safeParse(data);
  if (!parsed.success) throw new Error(describeZodError(parsed.error, `the front matter of ${file}`));
  const header = parsed.data;
  if (header['disable-model-invocation'] === true) return undefined;
  const description = (header.description ?? firstProseLine(body)).trim();
  if (description === '')
    throw new Error(`${file} has no description: add \`description:\` to its front matter, saying when to use the skill.`);
  const tools = header['allowed-tools'];
  return {
    name: header.name ?? dirName,
    description,
    allowedTools: tools == null ? [] : typeof tools === 'string' ? splitToolList(tools) : tools.flatMap(splitToolList),
    file,
    source,
  };
}

/** `Read, Bash(git add:*) Grep` → three rules: separators inside parentheses belong to the rule. */
export function splitToolList(list: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of list) {
    if (char === '(') depth += 1;
    if (char === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && (char === ',' || /\s/.test(char))) {
      if (current.trim()) out.push(current.trim());
      current = '';
      continue;
    }
    current += char;
  }
  if (current.trim()) out.push(current.trim());
  return out;
}

/**
 * The skills one session can load, and which it has loaded (the "skills in use" an autocompaction
 * puts back). Kept in the session's services (`skills`), shared by the context assembler (which
 * lists the skills) and the Skill tool (which loads them).
 */

export class SkillLibrary {
  private readonly used: string[] = [];

  constructor(
    readonly skills: readonly SkillInfo[],
    readonly problems: readonly string[] = [],
  ) {}

  get(name: string): SkillInfo | undefined {
    return this.skills.find((skill) => skill.name === name);
  }

  /** The skill's instructions, read now from disk, without the front matter. */
  body(skill: SkillInfo): string {
    return parseFrontMatter(readFileSync(skill.readFrom ?? skill.file, 'utf8'), skill.file).body.trim();
  }

  markUsed(name: string): void {
    if (!this.used.includes(name)) this.used.push(name);
  }

  /** Skills loaded in this session, in the order first loaded. */
  inUse(): SkillInfo[] {
    return this.used.map((name) => this.get(name)).filter((skill): skill is SkillInfo => skill !== undefined);
  }
}

/** The session's library: the one in `services`, or one found now from `projectDirs` and stored there. */
export function skillLibraryFor(services: SessionServices, locate: () => { projectDirs: string[]; homeDir: string }): SkillLibrary {
  if (services.skills) return services.skills;
  const found = discoverSkills({ ...locate(), pluginDirs: services.pluginSkills ?? [] });
  services.skills = new SkillLibrary(found.skills, found.problems);
  return services.skills;
}

declare module '../../core/tool/tool.js' {
  interface SessionServices {
    skills?: SkillLibrary;
    /** The skills folders of the session's plugins. */
    pluginSkills?: PluginSkills[];
  }
}

function listDirs(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() || entry.isSymbolicLink())
      .map((entry) => entry.name)
      .sort();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw error;
  }
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

function firstProseLine(body: string): string {
  return body.split('\n').find((line) => line.trim() !== '' && !line.trim().startsWith('#')) ?? '';
}
