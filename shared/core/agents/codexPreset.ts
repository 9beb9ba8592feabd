import type { AcpAgent } from './agentBackend.js';

/** OpenAI's Codex by Zed's ACP adapter: it reads and writes through orca's file system and runs commands in orca's terminals. */
export const codex: AcpAgent = {
  kind: 'acp',
  name: 'codex',
  command: ['codex-acp'],
  install: 'npm install -g @zed-industries/codex-acp',
  env: ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'CODEX_API_KEY'],
  baseUrlEnv: 'OPENAI_BASE_URL',
  // Its model API; with a ChatGPT login, ChatGPT's backend and where the login refreshes.
  apiHosts: ['api.openai.com', 'chatgpt.com', 'auth.openai.com'],
  loginFiles: ['.codex/auth.json', '.codex/config.toml'],
  withoutEnv: [],
  setEnv: {},
  replaces: [],
  session: 'prompt',
};
