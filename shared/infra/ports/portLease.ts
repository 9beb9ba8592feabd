import os from 'node:os';
import getPort from 'get-port';
import type { Redis } from 'ioredis';
import type { Keys } from '../redis/keys.js';
import { scanTargets } from '../redis/redisConnection.js';

const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

/**
 * Who holds a lease, the run first (`<run>|<holder>`): `orca clean` drops a finished run's leases
 * by it. The holder says what in the run: a worker's job attempt, the coordinator's checks.
 */
export function portLeaseOwner(runId: string, holder: string): string {
  return `${runId}|${holder}`;
}

/** The parts of an owner made by `portLeaseOwner`; one made otherwise is all run, no holder. */
export function parsePortLeaseOwner(owner: string): { runId: string; holder?: string } {
  const at = owner.indexOf('|');
  return at < 0 ? { runId: owner } : { runId: owner.slice(0, at), holder: owner.slice(at + 1) };
}

export interface PortLease {
  ports: number[];
  /** Stops renewing and deletes the leases this owner still holds. */
  release(): Promise<void>;
}

/**
 * Ports for one job, unique across every process that shares the Redis: get-port finds a port
 * free on this host, and a lease key (`SET NX PX`) claims it. The lease is renewed while the job
 * lives and expires on its own if the process dies, so a crash never strands a port for long.
 */
export class PortLeaser {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
    private readonly options: { host?: string; ttlMs?: number } = {},
  ) {}

  private get host(): string {
    return this.options.host ?? os.hostname();
  }

  private get ttlMs(): number {
    return this.options.ttlMs ?? 30_000;
  }

  async lease(count: number, owner: string): Promise<PortLease> {
    const ports: number[] = [];
    const tried = new Set<number>();
    try {
      while (ports.length < count) {
        if (tried.size > 2_000) throw new Error(`could not lease ${count} ports: 2,000 candidates were taken or leased`);
        const port = await getPort({ exclude: [...tried] });
        tried.add(port);
        const ok = await this.redis.set(this.keys.portLease(this.host, port), owner, 'PX', this.ttlMs, 'NX');
        if (ok === 'OK') ports.push(port);
      }
    } catch (error) {
      await this.releasePorts(ports, owner);
      throw error;
    }
    const timer = setInterval(
      () => {
        for (const port of ports) {
          this.redis.eval(RENEW, 1, this.keys.portLease(this.host, port), owner, this.ttlMs).catch(() => {
            // A missed renewal is retried on the next tick; the TTL leaves room for several.
          });
        }
      },
      Math.max(1_000, Math.floor(this.ttlMs / 3)),
    );
    timer.unref();
    let released = false;
    return {
      ports,
      release: async () => {
        if (released) return;
        released = true;
        clearInterval(timer);
        await this.releasePorts(ports, owner);
      },
    };
  }

  private async releasePorts(ports: number[], owner: string): Promise<void> {
    await Promise.all(ports.map((port) => this.redis.eval(RELEASE, 1, this.keys.portLease(this.host, port), owner)));
  }

  /** Deletes one lease if `owner` still holds it (`orca clean`, for leases of finished runs). */
  async drop(lease: { key: string; owner: string }): Promise<boolean> {
    return (await this.redis.eval(RELEASE, 1, lease.key, lease.owner)) === 1;
  }

  /** Lease keys still held (for `orca clean` and the tests' leak checks). */
  async held(): Promise<Array<{ key: string; owner: string }>> {
    const found: Array<{ key: string; owner: string }> = [];
    // On a cluster a SCAN sees one node's keys: every master is asked.
    for (const node of scanTargets(this.redis)) {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', this.keys.portLeases(), 'COUNT', 500);
        cursor = next;
        for (const key of keys) {
          const owner = await this.redis.get(key);
          if (owner !== null) found.push({ key, owner });
        }
      } while (cursor !== '0');
    }
    return found;
  }
}
