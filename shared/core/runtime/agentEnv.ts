import { SECRET_ENV, URL_WITH_PASSWORD } from './secretRedaction.js';

/**
 * Variables that name orca's own state: where its Redis is (and so its queue, run streams, asks
 * and answers), its key prefix, its home (run records, memory cards, transcripts, the Redis
 * password), the shared remote of a run. Agent-written code gets none of them: with them, a
 * script could list a run's keys, forge events or answer its own permission request.
 */
export const ORCA_STATE_ENV = /^(REDIS_URL|REDIS_CLUSTER_NODES|ORCA_HOME|ORCA_PREFIX|ORCA_SHARE|ORCA_CGROUP_ROOT|ORCA_REDIS_[A-Z_]+)$/;

/**
 * The environment for agent-written code (an agent's shell, the integration checks, setup
 * commands, language servers): the process's own, minus its secrets (the variables SECRET_ENV
 * names, and the password in a URL such as DATABASE_URL's) and minus what names orca's own state
 * (ORCA_STATE_ENV).
 */
export function agentShellEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(withoutOrcaState(env))) {
    if (value === undefined || SECRET_ENV.test(name)) continue;
    out[name] = URL_WITH_PASSWORD.test(value) ? withoutPassword(value) : value;
  }
  return out;
}

/** The environment without what names orca's own state (hooks and MCP servers, which otherwise get the user's whole environment, as in Claude Code). */
export function withoutOrcaState(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined && !ORCA_STATE_ENV.test(name)) out[name] = value;
  return out;
}

/** The URL with its password (not its user name) taken out: `redis://:pw@host:6379` → `redis://host:6379`. */
function withoutPassword(value: string): string {
  try {
    const url = new URL(value);
    url.password = '';
    return url.toString().replace(/^([a-z][a-z0-9+.-]*:\/\/)@/i, '$1');
  } catch {
    return value.replace(/(:\/\/[^/@\s:]*):[^/@\s]+@/, '$1@').replace(/:\/\/@/, '://');
  }
}
