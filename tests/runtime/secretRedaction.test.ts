import { describe, expect, it } from 'vitest';
import { agentShellEnv } from '../../shared/core/runtime/agentEnv.js';
import { REDACTED, SecretRedactor } from '../../shared/core/runtime/secretRedaction.js';

const ENV = {
  ANTHROPIC_API_KEY: 'sk-ant-unit-0123456789',
  ORCA_BOARD_TOKEN: 'board-token-0123456789',
  MY_SERVICE_PASSWORD: 'service-password-01',
  REDIS_URL: 'redis://:redis-pass-0123@127.0.0.1:6379/0',
  DATABASE_URL: 'postgres://app:db-pass-0123@localhost:5432/app',
  PLAIN_URL: 'http://localhost:8080/x',
  PATH: '/usr/bin',
};

describe('orca’s credentials, kept from agent-written code and from what orca writes down', () => {
  it("leaves them out of the environment of Bash and the checks, the password out of a URL, and every variable naming orca's own state", () => {
    expect(
      agentShellEnv({ ...ENV, ORCA_HOME: '/h', ORCA_PREFIX: 'p', REDIS_CLUSTER_NODES: 'a:1', ORCA_SHARE: 'git://x', ORCA_RUN_ID: 'r1' }),
    ).toEqual({
      ORCA_RUN_ID: 'r1',
      DATABASE_URL: 'postgres://app@localhost:5432/app',
      PLAIN_URL: 'http://localhost:8080/x',
      PATH: '/usr/bin',
    });
  });

  it('redacts their values, the board token and URL passwords included', () => {
    const redactor = new SecretRedactor(ENV);
    const text = `key ${ENV.ANTHROPIC_API_KEY} board ${ENV.ORCA_BOARD_TOKEN} redis redis-pass-0123 db db-pass-0123`;
    expect(redactor.redactText(text)).toBe(`key ${REDACTED} board ${REDACTED} redis ${REDACTED} db ${REDACTED}`);
  });
});
