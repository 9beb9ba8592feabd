import os from 'node:os';
import { readTrustedConfig } from '../shared/context/config/readTrustedConfig.js';
import type { TrustedConfig } from '../shared/infra/queue/trustedConfig.js';
import { userClaudeDir } from '../shared/policy/settings/loadSettings.js';

/**
 * The trusted configuration of a run or `orca agent` (docs/claude-code-files.md): the repository's
 * Claude Code files at `base` (git objects: what the checkout holds now is not read) and the
 * user's own, from this host.
 */
export function readRunConfig(repo: string, base: string): Promise<TrustedConfig> {
  return readTrustedConfig({ project: { repo, commit: base }, userClaudeDir: userClaudeDir(), homeDir: os.homedir() });
}
