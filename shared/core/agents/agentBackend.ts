import { z } from 'zod';

/**
 * What runs a role's agent: `orca` (orca's own loop, docs/how-a-run-goes.md) or an agent that
 * speaks the Agent Client Protocol (ACP: JSON-RPC over stdio) with orca as its client
 * (docs/agents.md). An ACP agent describes itself here; the worker reads nothing else about it.
 */
export const AcpAgentSchema = z
  .object({
    kind: z.literal('acp'),
    /** The name `--agent`, a role file's `agent:` and orca.json use. */
    name: z.string().min(1),
    /** The program and its arguments; the program is looked for on the worker's PATH. */
    command: z.array(z.string().min(1)).min(1),
    /** How to install it (an npm package, or words), for the one line a missing program gets. */
    install: z.string().min(1).optional(),
    /** The variables of the worker's environment it is given: its own key, login and endpoint; nothing else of orca's. */
    env: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/)).default([]),
    /** Variables of the shell's environment it must not get: ones that would let it skip orca's answers to its permission requests. */
    withoutEnv: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/)).default([]),
    /** Variables it is always given, whatever the worker's environment: those that keep it from calling home (updates, model lists, plugins). */
    setEnv: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string()).default({}),
    /**
     * Its own settings: its model API's base URL, its model, the tools it must not run itself.
     * Given as JSON in the variable `variable` (OpenCode's OPENCODE_CONFIG_CONTENT), or written to
     * `file` in its private home (Gemini CLI's `.gemini/settings.json`), over the user's own copy
     * of that file (a login file) where there is one: orca's keys win. `{env:NAME}` in a string is
     * the variable's value from its environment; a setting naming an unset variable is left out.
     */
    settings: z
      .object({
        variable: z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
          .optional(),
        file: z
          .string()
          .regex(/^(?!\/)(?!.*(^|\/)\.\.(\/|$)).+$/, 'a path inside its home, without ..')
          .optional(),
        value: z.record(z.string(), z.unknown()),
      })
      .strict()
      .refine((settings) => (settings.variable === undefined) !== (settings.file === undefined), {
        message: 'name either the variable or the file its settings go in, one of them',
      })
      .optional(),
    /**
     * Options added to its command, each entry given whole or not at all: `{env:NAME}` in an
     * argument is that variable's value in the agent's environment, and an entry naming an unset
     * variable, or whose `ifEnv` is unset, is left out (Codex's `-c key=value` settings: its model
     * provider only when the user named a base URL).
     */
    options: z
      .array(
        z
          .object({
            args: z.array(z.string().min(1)).min(1),
            ifEnv: z
              .string()
              .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
              .optional(),
          })
          .strict(),
      )
      .default([]),
    /** The variable naming its model API's base URL: the sandbox lets it reach that URL (docs/agents.md). */
    baseUrlEnv: z.string().min(1).optional(),
    /** Where its model API is when `baseUrlEnv` is unset: the hosts (port 443) its sandbox's proxy lets it reach. */
    apiHosts: z.array(z.string().regex(/^[A-Za-z0-9.-]+$/)).default([]),
    /**
     * A loopback address it serves its own HTTP API on, which its own command names (OpenCode's
     * `--hostname`): inside its sandbox's network it is reached directly, not through the proxy.
     */
    ownLoopback: z
      .string()
      .regex(/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/)
      .optional(),
    /** Files under the user's home copied into the agent's private home: its login (never written back). */
    loginFiles: z.array(z.string().min(1)).default([]),
    /**
     * The agent's own tools orca replaces with its own, offered over MCP (`mcp__orca__<Tool>`), so
     * its file writes and commands go through orca's rules and its checks are evidence. It is told
     * to drop its own by `claude-code` session options, by its `settings` (OpenCode's `permission`,
     * Gemini CLI's `tools.exclude`) or by its `options` (Codex's shell off, its patches refused).
     */
    replaces: z.array(z.string().min(1)).default([]),
    /**
     * Whether an accepted Report ends its turn there (ACP's cancel, before the call is answered:
     * docs/agents.md). Off for an agent that, cancelled while a call of its is under way, keeps
     * that call unanswered in its history (Gemini CLI 0.61), so that its next request, should the
     * Report be refused, is one its model API refuses: it then ends its turn as it would have.
     */
    reportEndsTurn: z.boolean().default(true),
    /**
     * How the role's instructions and the replaced tools reach it: `claude-code` (the Claude Agent
     * SDK's session `_meta`: an appended system prompt and disallowed tools), or `prompt` (the
     * instructions open the first prompt; its own tools are dropped, where it has any to drop, by
     * its settings or options, and what it reads and writes over ACP's file system and terminals
     * goes through orca's).
     */
    session: z.enum(['claude-code', 'prompt']).default('prompt'),
    /**
     * A native build of what the agent runs, preferred to the one it bundles when the user has one
     * on PATH that the agent speaks to (docs/agents.md, "Which Claude Code runs"): the claude-code
     * adapter's Agent SDK runs Claude Code as a 12 MB JavaScript file under Node, seconds to start,
     * where the native `claude` takes a fraction of one. `variable` names it to the agent
     * (CLAUDE_CODE_EXECUTABLE), unless the user set that variable; `program` is looked for on PATH
     * and run with `--version`; its version must have the major of, and be no older than, the
     * version `package`'s package.json (found beside the agent's program) names in `field`.
     */
    native: z
      .object({
        variable: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/),
        program: z.string().min(1),
        package: z.string().min(1),
        field: z.string().min(1),
      })
      .strict()
      .optional(),
  })
  .strict();
export type AcpAgent = z.infer<typeof AcpAgentSchema>;

export const OrcaBackendSchema = z.object({ kind: z.literal('orca') }).strict();

export const AgentBackendSchema = z.discriminatedUnion('kind', [OrcaBackendSchema, AcpAgentSchema]);
export type AgentBackend = z.infer<typeof AgentBackendSchema>;

/** orca's own loop: the default for every role. */
export const ORCA_BACKEND: AgentBackend = { kind: 'orca' };

/** How the board, the transcript and `--json` name the agent a task ran. */
export function backendName(backend: AgentBackend | undefined): string {
  return backend?.kind === 'acp' ? backend.name : 'orca';
}

/**
 * Whether an external agent's process runs the session (an ACP agent), beside the calls orca
 * runs for it; false for orca's own loop, named (`{ kind: 'orca' }`, as the coordinator sends it)
 * or not (unset).
 */
export function isExternalAgent(backend: AgentBackend | undefined): boolean {
  return backend?.kind === 'acp';
}
