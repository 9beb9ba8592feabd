import type * as acp from '@agentclientprotocol/sdk';
import { z } from 'zod';

/** ACP's `auth_required` error, as a refused `session/new` carries it. */
const AuthRequiredSchema = z.object({ code: z.literal(-32000) });

/** A login the agent does itself from variables of its environment (ACP's `env_var` method). */
const EnvLoginSchema = z.object({
  type: z.literal('env_var'),
  id: z.string().min(1),
  vars: z.array(z.object({ name: z.string().min(1), optional: z.boolean().nullish() })),
});

/** Whether the agent refused a request until the client has it log in. */
export function asksToLogIn(error: unknown): boolean {
  return AuthRequiredSchema.safeParse(error).success;
}

/**
 * The login method orca asks an agent for when it says it must log in first (Codex without a login
 * file: docs/agents.md): the first of its `env_var` methods whose variables it was given, since orca
 * can answer no browser or terminal login. None: one line naming the variables it would take.
 */
export function envLoginMethod(agent: string, methods: readonly acp.AuthMethod[] | undefined, hasEnv: (name: string) => boolean): string {
  const logins = (methods ?? []).flatMap((method) => {
    const parsed = EnvLoginSchema.safeParse(method);
    return parsed.success ? [parsed.data] : [];
  });
  const usable = logins.find((login) => login.vars.every((variable) => variable.optional || hasEnv(variable.name)));
  if (usable) return usable.id;
  const names = [
    ...new Set(logins.flatMap((login) => login.vars.filter((variable) => !variable.optional).map((variable) => variable.name))),
  ];
  throw new Error(
    `the ${agent} agent asks to log in, and orca can give it no login it does itself: ${
      names.length > 0 ? `set ${names.join(' or ')} in the worker's environment` : 'it offers none that reads its environment'
    }, or log in with it once on this host so its login file is copied in (docs/agents.md)`,
  );
}
