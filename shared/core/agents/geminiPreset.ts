import type { AcpAgent } from './agentBackend.js';

/** orca's tools Gemini CLI is offered over MCP (it names them `mcp_orca_Write`, and a call of one `mcp_orca_Write__…`). */
const REPLACED = ['Read', 'Write', 'Edit', 'Bash'];

/**
 * Its own tools that read or write files, run commands, fetch the web or start sub-agents of its
 * own: orca's are offered instead, so its writes meet orca's rules and its commands run in orca's
 * sandbox and are evidence. Its listing, grep, glob and todo list stay its own, in the sandbox.
 */
const EXCLUDED = ['read_file', 'read_many_files', 'write_file', 'replace', 'run_shell_command', 'web_fetch', 'invoke_agent'];

/**
 * Google's Gemini CLI in its ACP mode (`gemini --acp`). Its settings go in its private home's
 * `.gemini/settings.json` (over the user's copy of it): its own writers and shell excluded; folder
 * trust off, since in a folder it does not trust (a worktree, first seen) it connects no MCP server
 * and so could not Report; its model fixed, so it asks no router model first; no update check, no
 * usage statistics or telemetry. (Its system settings file would outrank a repository's
 * `.gemini/`, but it skips one under a folder others may write, as /tmp is.)
 */
export const gemini: AcpAgent = {
  kind: 'acp',
  name: 'gemini',
  command: ['gemini', '--acp'],
  install: 'npm install -g @google/gemini-cli@0.61.0',
  env: ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_GEMINI_BASE_URL', 'GOOGLE_CLOUD_PROJECT', 'GOOGLE_GENAI_USE_VERTEXAI'],
  baseUrlEnv: 'GOOGLE_GEMINI_BASE_URL',
  apiHosts: ['generativelanguage.googleapis.com', 'oauth2.googleapis.com', 'cloudcode-pa.googleapis.com'],
  loginFiles: ['.gemini/oauth_creds.json', '.gemini/google_accounts.json', '.gemini/settings.json'],
  // Its system settings would outrank what orca writes in its home.
  withoutEnv: ['GEMINI_CLI_SYSTEM_SETTINGS_PATH', 'GEMINI_CLI_SYSTEM_DEFAULTS_PATH'],
  options: [],
  setEnv: {},
  settings: {
    file: '.gemini/settings.json',
    value: {
      tools: { exclude: EXCLUDED },
      security: { folderTrust: { enabled: false } },
      model: { name: 'gemini-2.5-pro' },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
    },
  },
  replaces: REPLACED,
  // Cancelled during its Report's call, it keeps the call unanswered, and a further prompt's request would be refused by its API.
  reportEndsTurn: false,
  session: 'prompt',
};
