import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { checkRedisUrl, clusterNodes, redisUrl, shownRedisUrl } from './redisUrl.js';

/*
 * Whether a Redis answers, asked over one short connection of its own: AUTH when the URL carries a
 * password, then PING, in the protocol's plain form. Not through ioredis, which is the largest
 * module a command would otherwise load before it can say anything (`orca run` pings its Redis
 * before its run id: docs/benchmarks.md, cli_to_run_id_ms). A cluster is asked through ioredis'
 * Cluster, loaded then (redisClusterPing.ts): its nodes and slots are more than a PING.
 */

/** Resolves when Redis answers PING, or rejects with a message saying how to start it. */
export async function pingRedis(url = redisUrl(), timeoutMs = 2_000): Promise<void> {
  const nodes = clusterNodes(url);
  if (nodes) return (await import('./redisClusterPing.js')).pingCluster(nodes, timeoutMs);
  checkRedisUrl(url);
  try {
    await ping(new URL(url), timeoutMs);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(
      `Redis does not answer at ${shownRedisUrl(url)} (${detail}): start one (\`redis-server\`, or \`docker compose up -d redis\`) or set REDIS_URL.`,
    );
  }
}

/** A password sent to a Redis that takes none is refused this way; ioredis, and so orca, goes on without it. */
const NO_PASSWORD_SET = /no password is set|without any password configured/i;

function ping(url: URL, timeoutMs: number): Promise<void> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1') || '127.0.0.1';
  const port = Number(url.port || 6379);
  const password = decodeURIComponent(url.password);
  const username = decodeURIComponent(url.username);
  const commands: string[][] = [];
  if (password) commands.push(username ? ['AUTH', username, password] : ['AUTH', password]);
  commands.push(['PING']);
  return new Promise<void>((resolve, reject) => {
    const tls = url.protocol === 'rediss:';
    const socket: Socket = tls ? tlsConnect({ host, port, servername: host }) : netConnect({ host, port });
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve();
    };
    const timer = setTimeout(() => settle(new Error('connect ETIMEDOUT')), timeoutMs);
    socket.once(tls ? 'secureConnect' : 'connect', () => socket.write(commands.map(encode).join('')));
    let buffered = '';
    let replies = 0;
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      for (let end = buffered.indexOf('\r\n'); end >= 0; end = buffered.indexOf('\r\n')) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const auth = password !== '' && replies === 0;
        replies += 1;
        if (line.startsWith('-') && !(auth && NO_PASSWORD_SET.test(line))) return settle(new Error(line.slice(1)));
        // Only Redis answers +OK and +PONG: anything else (an HTTP server, a proxy) is not one.
        if (!line.startsWith('-') && line !== (auth ? '+OK' : '+PONG')) return settle(new Error(`not a Redis reply: ${line.slice(0, 80)}`));
        if (replies === commands.length) return settle();
      }
    });
    socket.on('error', (error) => settle(error));
    socket.on('close', () => settle(new Error('Connection is closed.')));
  });
}

/** A command as the protocol writes it: an array of bulk strings. */
function encode(args: string[]): string {
  return `*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join('')}`;
}
