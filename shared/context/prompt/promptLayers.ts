import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { AgentSession } from '../../core/loop/session.js';
import type { SystemBlock } from '../../core/model/model.js';
import { type LoadedInstruction, loadedInstructionFiles, loadedRule } from '../instructions/loadedInstructions.js';
import { loadProjectInstructions, projectFolders } from '../instructions/projectInstructions.js';
import { loadRules, type Rule } from '../instructions/rules.js';
import { discoverSkills, SkillLibrary, skillLibraryFor } from '../instructions/skills.js';
import { contextMessageText } from './contextMessage.js';
import { dynamicContextText } from './dynamicContext.js';
import { type GitSnapshot, readGitSnapshot } from './gitSnapshot.js';

/**
 * The layers of the prompt that are set once, when a session starts, and then kept byte for
 * byte so they stay in the cached prefix: system block 1, the static prompt (session.systemPrompt,
 * see staticPrompt.ts; cache breakpoint); system block 2, the dynamic environment
 * (dynamicContext.ts) and the memory cards chosen for the task (docs/memory.md); and the context message that opens the messages (instructions,
 * unconditional rules, the skill list). Conditional rules wait for a Read (conditionalRules.ts).
 */
export interface PromptLayers {
  system: SystemBlock[];
  contextText?: string;
  conditionalRules: Rule[];
  library: SkillLibrary;
  /** The git state the environment block describes; the per-turn reminder reports changes from it. */
  gitAtStart: GitSnapshot;
  /** The instruction files and unconditional rules in the context message, for the InstructionsLoaded hooks. */
  loaded: LoadedInstruction[];
}

/**
 * Where the trusted configuration's files were written out (context/config/configFolders.ts): the
 * instructions, rules and skills are read there instead of in the agent's workspace, and shown
 * under the names they have in the repository and the user's home.
 */
export interface ContextConfigFolders {
  projectRoot: string;
  homeDir: string;
  /** The user's real home, for the names of their files. */
  shownHome: string;
}

/** Loads the layers for a session; files that could not be used are reported as warn notices. */
export async function loadPromptLayers(
  session: AgentSession,
  options: { homeDir: string; gitAtStart?: GitSnapshot; memorySection?: string; mcpSection?: string; config?: ContextConfigFolders },
): Promise<PromptLayers> {
  const root = session.workspace.root;
  const { config } = options;
  const homeDir = config?.homeDir ?? options.homeDir;
  const { root: repoRoot, folders } = config ? { root: config.projectRoot, folders: [config.projectRoot] } : projectFolders(root);
  const shown = config ? shownPath(config, root) : (file: string) => file;
  const loaded = loadProjectInstructions({ cwd: folders.at(-1)!, homeDir, project: config ? { root: repoRoot, folders } : undefined });
  const instructions = {
    files: loaded.files.map((file) => ({
      ...file,
      path: shown(file.path),
      importedFrom: file.importedFrom ? shown(file.importedFrom) : undefined,
    })),
    skipped: loaded.skipped.map((skipped) => ({ ...skipped, path: shown(skipped.path) })),
  };
  const found = loadRules({ projectDirs: folders, homeDir, repoRoot });
  // A rule's globs are relative to the workspace the agent reads, not to where its text was written out.
  const rules = {
    problems: found.problems,
    rules: found.rules.map((rule) => ({ ...rule, file: shown(rule.file), baseDir: config ? root : rule.baseDir })),
  };
  const { services } = session.toolContext;
  if (config && !services.skills) {
    // Read where the trusted configuration put them; named as in the workspace and the home. A
    // plugin's skills are read in the plugin's own folder (the user's, from disk).
    const found = discoverSkills({ projectDirs: folders, homeDir, pluginDirs: services.pluginSkills ?? [] });
    services.skills = new SkillLibrary(
      found.skills.map((skill) => (skill.source === 'plugin' ? skill : { ...skill, file: shown(skill.file), readFrom: skill.file })),
      found.problems,
    );
  }
  const library = skillLibraryFor(services, () => ({ projectDirs: folders, homeDir }));
  const gitAtStart = options.gitAtStart ?? (await readGitSnapshot(root));
  const dynamic = dynamicContextText({
    cwd: root,
    date: new Date(session.startedAt),
    git: gitAtStart,
    shellEnv: session.toolContext.shell.env,
    limits: session.limits,
  });
  const warn = (message: string) => session.toolContext.emit({ type: 'notice', level: 'warn', message });
  for (const skipped of instructions.skipped) warn(`instructions: skipped ${skipped.path}: ${skipped.reason}`);
  for (const problem of [...rules.problems, ...library.problems]) warn(`context: ${problem}`);

  return {
    system: [
      { text: session.systemPrompt, cache: true },
      { text: [dynamic, options.mcpSection, options.memorySection].filter(Boolean).join('\n\n') },
    ],
    contextText: contextMessageText({
      instructions: instructions.files,
      rules: rules.rules.filter((rule) => !rule.patterns),
      skills: library.skills,
    }),
    conditionalRules: rules.rules.filter((rule) => rule.patterns),
    library,
    gitAtStart,
    loaded: [
      ...loadedInstructionFiles(instructions.files),
      ...rules.rules.filter((rule) => !rule.patterns).map((rule) => loadedRule(rule, options.homeDir)),
    ],
  };
}

/** A path under the written-out folders, named as the file is in the workspace or the user's home. */
function shownPath(config: ContextConfigFolders, workspaceRoot: string): (file: string) => string {
  const pairs = [
    [config.projectRoot, workspaceRoot],
    [config.homeDir, config.shownHome],
  ].flatMap(([from, to]) => [from!, realpathSync(from!)].map((prefix) => [prefix, to!] as const));
  return (file) => {
    for (const [prefix, to] of pairs) {
      if (file === prefix || file.startsWith(prefix + path.sep)) return to + file.slice(prefix.length);
    }
    return file;
  };
}
