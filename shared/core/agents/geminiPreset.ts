import type { AcpAgent } from './agentBackend.js';

/** Google's Gemini CLI in its ACP mode. */
export const gemini: AcpAgent = {
  kind: 'acp',
  name: 'gemini',
  command: ['gemini', '--acp'],
  install: 'npm install -g @google/gemini-cli',
  env: ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_GEMINI_BASE_URL', 'GOOGLE_CLOUD_PROJECT', 'GOOGLE_GENAI_USE_VERTEXAI'],
  baseUrlEnv: 'GOOGLE_GEMINI_BASE_URL',
  apiHosts: ['generativelanguage.googleapis.com', 'oauth2.googleapis.com', 'cloudcode-pa.googleapis.com'],
  loginFiles: ['.gemini/oauth_creds.json', '.gemini/google_accounts.json', '.gemini/settings.json'],
  withoutEnv: [],
  options: [],
  setEnv: {},
  replaces: [],
  session: 'prompt',
};
