import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ConfigFile, TrustedConfig } from '../../infra/queue/trustedConfig.js';

/**
 * The trusted configuration's files written out for the loaders that read folders (instructions
 * and their imports, rules, skills): a project root and a home of their own, in the session's
 * folder, which the agent's sandboxed shell cannot write. The agent's own tree is never read for
 * them.
 */
export interface ConfigFolders {
  /** Stands in for the repository's root at the base commit. */
  projectRoot: string;
  /** Stands in for the user's home (`.claude/CLAUDE.md`, `.claude/skills/`, …). */
  homeDir: string;
}

export function writeConfigFolders(config: TrustedConfig, dir: string): ConfigFolders {
  rmSync(dir, { recursive: true, force: true });
  const folders = { projectRoot: path.join(dir, 'project'), homeDir: path.join(dir, 'home') };
  mkdirSync(folders.projectRoot, { recursive: true });
  mkdirSync(folders.homeDir, { recursive: true });
  const write = (root: string, files: ConfigFile[]) => {
    for (const file of files) {
      const target = path.join(root, ...file.path.split('/'));
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, file.text);
    }
  };
  write(folders.projectRoot, config.project);
  // The user's own copies of local files win over any the repository commits.
  write(folders.projectRoot, config.local);
  write(folders.homeDir, config.home.files);
  return folders;
}
