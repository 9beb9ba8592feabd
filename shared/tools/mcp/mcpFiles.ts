import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type McpServerEntry, parseMcpConfig } from './mcpConfig.js';

/**
 * The user's own MCP config, Claude Code's `~/.claude.json` (its top-level `mcpServers`): in the
 * user's Claude folder when one is named (`ORCA_USER_CLAUDE_DIR`, `CLAUDE_CONFIG_DIR`, a test's
 * folder), else in the home folder.
 */
export function userMcpConfigFile(options: { userClaudeDir?: string; homeDir?: string; env?: NodeJS.ProcessEnv }): string {
  const env = options.env ?? process.env;
  const dir = options.userClaudeDir ?? (env.ORCA_USER_CLAUDE_DIR || env.CLAUDE_CONFIG_DIR || undefined);
  return path.join(dir ? path.resolve(dir) : (options.homeDir ?? os.homedir()), '.claude.json');
}

/**
 * The configured servers, the project's (`.mcp.json` at `projectRoot`) before the user's. The
 * text of `.mcp.json` may be given instead of read (`projectText`): a run's trusted configuration,
 * read at its base commit, goes in there (`null`: that commit has none, and the tree is not looked at).
 */
export function configuredServers(options: { projectRoot: string; projectText?: string | null; userConfigFile: string }): McpServerEntry[] {
  const projectText =
    options.projectText === null ? undefined : (options.projectText ?? readIfThere(path.join(options.projectRoot, '.mcp.json')));
  return [
    ...parseMcpConfig(projectText, '.mcp.json', 'project'),
    ...parseMcpConfig(readIfThere(options.userConfigFile), options.userConfigFile, 'user'),
  ];
}

function readIfThere(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
