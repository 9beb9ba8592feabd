import type { AcpAgent } from './agentBackend.js';

/** orca's tools Codex is offered over MCP (it names a call of one `Tool: orca/Write`). */
const REPLACED = ['Read', 'Write', 'Edit', 'Bash'];

/**
 * The model provider Codex is given when the user names a base URL (OPENAI_BASE_URL): one of its
 * own, since Codex's built-in `openai` provider cannot be overridden and reads that variable no
 * more (codex-acp 0.16, Codex 0.137), and over HTTP: the built-in provider tries a WebSocket first,
 * which a gateway or proxy seldom speaks, and falls back only after five tries (about 6 s a session).
 * Its key is OPENAI_API_KEY, sent as a bearer token.
 */
const BASE_URL_PROVIDER =
  'model_providers.orca-openai={name="OpenAI at OPENAI_BASE_URL", base_url="{env:OPENAI_BASE_URL}", env_key="OPENAI_API_KEY", wire_api="responses", supports_websockets=false}';

/**
 * OpenAI's Codex by Zed's ACP adapter (`codex-acp`). It uses neither ACP's file system nor its
 * terminals: it runs commands with its own shell and edits with its own `apply_patch`. So its
 * shell is turned off and orca's Read, Write, Edit and Bash are offered over MCP instead: its
 * writes meet the owned paths and the stale-file rules, its commands run in orca's sandbox and
 * are evidence. Its `apply_patch` the adapter always offers; in Codex's read-only mode with
 * approval `never` a patch is refused by Codex itself, before it writes anything, and its model is
 * told so (`patch rejected: writing is blocked by read-only sandbox`) and goes on with orca's
 * tools. (With approval on request, Codex would ask orca about each patch and about each call of
 * orca's MCP tools, and takes a refusal as the user stopping its turn.) Its settings are given as
 * `-c` options, over whatever `~/.codex/config.toml` of the user's is copied in.
 */
export const codex: AcpAgent = {
  kind: 'acp',
  name: 'codex',
  command: ['codex-acp'],
  install: 'npm install -g @zed-industries/codex-acp@0.16.0',
  env: ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'CODEX_API_KEY'],
  baseUrlEnv: 'OPENAI_BASE_URL',
  options: [
    { args: ['-c', 'features.shell_tool=false', '-c', 'sandbox_mode="read-only"', '-c', 'approval_policy="never"'] },
    { ifEnv: 'OPENAI_BASE_URL', args: ['-c', 'model_provider="orca-openai"', '-c', BASE_URL_PROVIDER] },
  ],
  // Its model API; with a ChatGPT login, ChatGPT's backend and where the login refreshes.
  apiHosts: ['api.openai.com', 'chatgpt.com', 'auth.openai.com'],
  loginFiles: ['.codex/auth.json', '.codex/config.toml'],
  // Its home and state follow HOME (its private home in the sandbox) unless this points elsewhere.
  withoutEnv: ['CODEX_HOME'],
  setEnv: {},
  replaces: REPLACED,
  reportEndsTurn: true,
  session: 'prompt',
};
