import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { OrcaHome } from '../shared/core/runtime/orcaHome.js';
import { processAlive } from '../shared/core/runtime/processAlive.js';

/**
 * The password of a redis-server orca started itself, kept where orca's other commands (status,
 * allow, abort, serve) find it: `ORCA_HOME/secrets/redis-<port>.json`, mode 0600 in a 0700
 * folder. Never in an environment variable (an agent's command could inherit it), never on a
 * command line (`ps` shows those to every user): the server gets it on stdin, local workers over IPC.
 */
const RedisSecretSchema = z.object({
  port: z.number().int().positive(),
  password: z.string().min(16),
  /** The redis-server's pid: a file whose server is gone is stale. */
  pid: z.number().int().positive(),
});
export type RedisSecret = z.infer<typeof RedisSecretSchema>;

const FILE = /^redis-(\d+)\.json$/;

function secretsDir(home: OrcaHome): string {
  const dir = path.join(home.root, 'secrets');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // An existing folder keeps its mode through mkdir: set it, whatever it was.
  chmodSync(dir, 0o700);
  return dir;
}

/** Writes the secret (0600, created anew) and returns its file. */
export function writeRedisSecret(home: OrcaHome, secret: RedisSecret): string {
  const file = path.join(secretsDir(home), `redis-${secret.port}.json`);
  rmSync(file, { force: true });
  writeFileSync(file, `${JSON.stringify(secret)}\n`, { mode: 0o600, flag: 'wx' });
  return file;
}

/** The secrets of the servers still running; a file that is not a secret is named. */
export function liveRedisSecrets(home: OrcaHome): RedisSecret[] {
  const dir = secretsDir(home);
  const found: RedisSecret[] = [];
  for (const name of readdirSync(dir)) {
    if (!FILE.test(name)) continue;
    const file = path.join(dir, name);
    let secret: RedisSecret;
    try {
      secret = RedisSecretSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
    } catch (error) {
      throw new Error(`${file} is not an orca Redis secret (${(error as Error).message.split('\n')[0]}): remove it.`);
    }
    if (processAlive(secret.pid)) found.push(secret);
  }
  return found;
}

/** The URL a client connects with: the password in it, so it is never printed (see `redisWhere`). */
export function secretUrl(secret: RedisSecret): string {
  return `redis://:${secret.password}@127.0.0.1:${secret.port}`;
}
