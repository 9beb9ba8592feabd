import { Cluster } from 'ioredis';

/*
 * A Redis Cluster asked whether it answers, through ioredis: its nodes and slots are more than a
 * PING. A module of its own, imported when a cluster is named (redisPing.ts), so that a command
 * loads ioredis only then; ioredis is CommonJS, whose named exports an import() of the package
 * did not carry in a bundle of ES module chunks (the CLI's first, docs/architecture.md).
 */

/** Resolves when the cluster's nodes answer PING, or rejects with a message naming them and what to set. */
export async function pingCluster(nodes: Array<{ host: string; port: number }>, timeoutMs: number): Promise<void> {
  const cluster = new Cluster(nodes, {
    lazyConnect: true,
    clusterRetryStrategy: () => null,
    redisOptions: { maxRetriesPerRequest: 0, connectTimeout: timeoutMs },
  });
  cluster.on('error', () => {});
  try {
    await cluster.connect();
    await cluster.ping();
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    const named = nodes.map((node) => `${node.host}:${node.port}`).join(',');
    throw new Error(`the Redis Cluster at ${named} does not answer (${detail}): check REDIS_CLUSTER_NODES, or unset it to use REDIS_URL.`);
  } finally {
    cluster.disconnect();
  }
}
