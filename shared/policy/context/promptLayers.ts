import type { AgentSession } from '../../core/loop/session.js';
import type { SystemBlock } from '../../core/model/model.js';
import { contextMessageText } from './contextMessage.js';
import { dynamicContextText } from './dynamicContext.js';
import { type GitSnapshot, readGitSnapshot } from './gitSnapshot.js';
import { loadProjectInstructions, projectFolders } from './projectInstructions.js';
import { loadRules, type Rule } from './rules.js';
import { type SkillLibrary, skillLibraryFor } from './skills.js';

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
}

/** Loads the layers for a session; files that could not be used are reported as warn notices. */
export async function loadPromptLayers(
  session: AgentSession,
  options: { homeDir: string; gitAtStart?: GitSnapshot; memorySection?: string; mcpSection?: string },
): Promise<PromptLayers> {
  const root = session.workspace.root;
  const { root: repoRoot, folders } = projectFolders(root);
  const instructions = loadProjectInstructions({ cwd: root, homeDir: options.homeDir });
  const rules = loadRules({ projectDirs: folders, homeDir: options.homeDir, repoRoot });
  const library = skillLibraryFor(session.toolContext.services, () => ({ projectDirs: folders, homeDir: options.homeDir }));
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
  };
}
