import type { AcpAgent } from './agentBackend.js';

/** Where OpenCode serves the HTTP API its ACP side calls, inside its sandbox's network (127.0.0.1 there is the proxy's way to the host). */
const OWN_LOOPBACK = '127.0.0.2';

/** orca's tools OpenCode is offered over MCP instead of its own (it names them `orca_Read` …). */
const REPLACED = ['Read', 'Write', 'Edit', 'Bash'];

/** Its own tools that would act on the disk or the network itself are denied; orca's MCP tools need no asking. */
const PERMISSION = {
  read: 'deny',
  edit: 'deny',
  bash: 'deny',
  webfetch: 'deny',
  websearch: 'deny',
  task: 'deny',
  skill: 'deny',
  'orca_*': 'allow',
};

/**
 * OpenCode (`opencode acp`) against the Anthropic Messages API. Its own read, edit, write, patch
 * and bash act on the disk themselves (an allowed edit is also sent over ACP's fs/write_text_file,
 * but its own write lands either way), so its settings deny them and orca's are offered over MCP:
 * its writes meet the owned paths and the stale-file rules, its commands run in orca's sandbox and
 * are evidence. Its grep, glob and todo list stay its own. Its settings also keep it from calling
 * anywhere but its model API: no update check, no model list fetch, no default plugins, no share,
 * no OpenCode Zen provider.
 */
export const opencode: AcpAgent = {
  kind: 'acp',
  name: 'opencode',
  // It talks to its own HTTP API over loopback: an address of its own, which its sandbox's proxy leaves direct.
  command: ['opencode', 'acp', '--hostname', OWN_LOOPBACK],
  ownLoopback: OWN_LOOPBACK,
  install: 'npm install -g opencode-ai@1.18.33',
  env: ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'OPENCODE_CONFIG'],
  // Its config, data and cache folders follow HOME (its private home in the sandbox) unless these point elsewhere.
  withoutEnv: ['XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME', 'XDG_STATE_HOME', 'OPENCODE_CONFIG_DIR'],
  options: [],
  setEnv: {
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    OPENCODE_DISABLE_SHARE: '1',
    // A repository's own opencode.json or .opencode/ (which the task may even be editing) must not loosen what follows.
    OPENCODE_DISABLE_PROJECT_CONFIG: '1',
    // Merged over every other setting of its: its own tools that act on the disk are denied, orca's allowed.
    OPENCODE_PERMISSION: JSON.stringify(PERMISSION),
  },
  settings: {
    variable: 'OPENCODE_CONFIG_CONTENT',
    value: {
      autoupdate: false,
      share: 'disabled',
      disabled_providers: ['opencode'],
      model: 'anthropic/claude-sonnet-4-5',
      small_model: 'anthropic/claude-haiku-4-5',
      // Its Anthropic client takes a base URL with the API's version, where ANTHROPIC_BASE_URL (Claude Code's) has none.
      provider: { anthropic: { options: { baseURL: '{env:ANTHROPIC_BASE_URL}/v1' } } },
    },
  },
  baseUrlEnv: 'ANTHROPIC_BASE_URL',
  apiHosts: ['api.anthropic.com'],
  loginFiles: ['.local/share/opencode/auth.json', '.config/opencode/opencode.json'],
  replaces: REPLACED,
  reportEndsTurn: true,
  session: 'prompt',
};
