import type { AcpAgent } from './agentBackend.js';

/** OpenCode in its ACP mode; its providers' keys are its own variables. */
export const opencode: AcpAgent = {
  kind: 'acp',
  name: 'opencode',
  command: ['opencode', 'acp'],
  install: 'npm install -g opencode-ai',
  env: ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OPENCODE_CONFIG'],
  baseUrlEnv: 'ANTHROPIC_BASE_URL',
  apiHosts: ['api.anthropic.com', 'api.openai.com'],
  loginFiles: ['.local/share/opencode/auth.json', '.config/opencode/opencode.json'],
  withoutEnv: [],
  replaces: [],
  session: 'prompt',
};
