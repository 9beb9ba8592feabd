import type { RoleSpec } from '../shared/infra/queue/agentJob.js';
import type { RoleDefinition } from './role.js';

/** The role as it travels in a job payload. */
export function roleSpec(role: RoleDefinition): RoleSpec {
  const { description: _description, agent: _agent, ...spec } = role;
  return { ...spec, mcpServers: role.mcpServers ?? [] };
}
