import type { AcpAgent } from './agentBackend.js';

/**
 * Claude Code through the Claude Agent SDK, by Zed's ACP adapter. Its Read, Write, Edit and Bash
 * are replaced by orca's (over MCP): its writes meet the owned paths and the stale-file rules, its
 * commands run in orca's sandbox and are the evidence the Report's claims are checked against.
 */
export const claudeCode: AcpAgent = {
  kind: 'acp',
  name: 'claude-code',
  command: ['claude-agent-acp'],
  install: 'npm install -g @zed-industries/claude-agent-acp@0.23.1',
  env: [
    'ANTHROPIC_API_KEY',
    'ANTHROPIC_AUTH_TOKEN',
    'ANTHROPIC_BASE_URL',
    'ANTHROPIC_MODEL',
    'CLAUDE_CODE_USE_BEDROCK',
    'CLAUDE_CODE_USE_VERTEX',
  ],
  // IS_SANDBOX lets the adapter offer Claude Code's bypassPermissions mode, where no call would reach orca's policy.
  withoutEnv: ['IS_SANDBOX'],
  // What `claude -p` is compared with in the benchmark gets too: no telemetry, update check or side
  // model requests (a session title): its proxy would refuse all but the last, which costs a model call.
  setEnv: { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1' },
  options: [],
  baseUrlEnv: 'ANTHROPIC_BASE_URL',
  // Its model API, and where a `claude /login` login refreshes its token (the Claude Agent SDK's TOKEN_URL).
  apiHosts: ['api.anthropic.com', 'platform.claude.com'],
  loginFiles: ['.claude/.credentials.json'],
  replaces: ['Read', 'Write', 'Edit', 'MultiEdit', 'NotebookEdit', 'Bash', 'BashOutput', 'KillShell'],
  reportEndsTurn: true,
  session: 'claude-code',
  // The native `claude` on PATH starts in a fraction of the time of the Agent SDK's own cli.js; the SDK names the Claude Code it was built with.
  native: { variable: 'CLAUDE_CODE_EXECUTABLE', program: 'claude', package: '@anthropic-ai/claude-agent-sdk', field: 'claudeCodeVersion' },
};
