import path from 'node:path';
import type { InstructionFile } from './instructionImports.js';
import type { Rule } from './rules.js';

/**
 * One instruction file or rule put in an agent's context, told to the InstructionsLoaded hooks
 * in Claude Code's terms: which kind of memory it is and why it was loaded.
 */
export interface LoadedInstruction {
  file: string;
  memoryType: 'User' | 'Project' | 'Local';
  loadReason: 'session_start' | 'include' | 'path_glob_match';
  globs?: string[];
  /** The file whose Read triggered a conditional rule. */
  triggerFile?: string;
  /** The file that imported this one. */
  parentFile?: string;
}

/** Called with what was just put in the context: at session start, and as conditional rules trigger. */
export type InstructionsLoadedHook = (loaded: LoadedInstruction[]) => Promise<void>;

export function loadedInstructionFiles(files: readonly InstructionFile[]): LoadedInstruction[] {
  const kindOf = new Map<string, InstructionFile['kind']>();
  const loaded: LoadedInstruction[] = [];
  for (const file of files) {
    // An import counts as the memory of the file that imported it.
    const kind = file.kind === 'import' ? (kindOf.get(file.importedFrom ?? '') ?? 'project') : file.kind;
    kindOf.set(file.path, kind);
    loaded.push({
      file: file.path,
      memoryType: kind === 'user' ? 'User' : kind === 'local' ? 'Local' : 'Project',
      loadReason: file.kind === 'import' ? 'include' : 'session_start',
      ...(file.importedFrom !== undefined ? { parentFile: file.importedFrom } : {}),
    });
  }
  return loaded;
}

export function loadedRule(rule: Rule, homeDir: string, triggerFile?: string): LoadedInstruction {
  const user = rule.file.startsWith(path.join(homeDir, '.claude') + path.sep);
  return {
    file: rule.file,
    memoryType: user ? 'User' : 'Project',
    loadReason: triggerFile !== undefined ? 'path_glob_match' : 'session_start',
    ...(rule.patterns ? { globs: rule.patterns } : {}),
    ...(triggerFile !== undefined ? { triggerFile } : {}),
  };
}
