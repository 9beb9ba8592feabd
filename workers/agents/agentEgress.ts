import type { AcpAgent } from '../../shared/core/agents/agentBackend.js';

/**
 * Where an external agent's network may go, as the proxy's rules (egressRules.ts): its model API
 * (the base URL its `baseUrlEnv` names, else its preset's own API hosts) at exactly its host and
 * port, and orca's MCP server at exactly its loopback port. Nothing else: not Redis, not another
 * loopback port, not another domain.
 */
export function agentEgress(agent: AcpAgent, env: NodeJS.ProcessEnv, mcpUrl: string): string[] {
  const baseUrl = agent.baseUrlEnv ? env[agent.baseUrlEnv] : undefined;
  const api = baseUrl ? [hostAndPort(baseUrl, `${agent.name}'s ${agent.baseUrlEnv}`)] : agent.apiHosts.map((host) => `${host}:443`);
  if (api.length === 0) {
    throw new Error(
      `the ${agent.name} agent names no model API to reach: set ${agent.baseUrlEnv ?? 'its base URL variable'} or give it apiHosts in orca.json (docs/agents.md)`,
    );
  }
  return [...api, hostAndPort(mcpUrl, "orca's MCP server")];
}

/** A URL's `host:port` (its scheme's port when it names none), as a rule naming that port alone. */
function hostAndPort(url: string, what: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`${what} is not a URL (${JSON.stringify(url)}): write it as https://host[:port]`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new Error(`${what} is not an http(s) URL (${JSON.stringify(url)}): write it as https://host[:port]`);
  }
  const port = parsed.port || (parsed.protocol === 'https:' ? '443' : '80');
  return `${parsed.hostname}:${port}`;
}
