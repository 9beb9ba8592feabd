import { describe, expect, it } from 'vitest';
import { PortLeaser } from '../../shared/infra/ports/portLease.js';
import { testRedis } from '../support/redis.js';

describe('port leases', () => {
  it('never leases one port twice across concurrent leasers, and releases them all', async () => {
    const { redis, keys } = testRedis();
    // Two leasers stand for two processes on one host: only Redis is shared between them.
    const a = new PortLeaser(redis, keys, { host: 'h1' });
    const b = new PortLeaser(redis, keys, { host: 'h1' });
    const leases = await Promise.all(Array.from({ length: 16 }, (_, i) => (i % 2 ? a : b).lease(2, `job-${i}`)));
    const all = leases.flatMap((lease) => lease.ports);
    expect(all).toHaveLength(32);
    expect(new Set(all).size).toBe(32);
    expect((await a.held()).length).toBe(32);
    await Promise.all(leases.map((lease) => lease.release()));
    expect(await a.held()).toEqual([]);
  });

  it('skips a port another owner holds', async () => {
    const { redis, keys } = testRedis();
    const leaser = new PortLeaser(redis, keys, { host: 'h2' });
    const first = await leaser.lease(1, 'first');
    // Claim the next free port from outside, as another host-local process would.
    const held = first.ports[0]!;
    const second = await leaser.lease(3, 'second');
    expect(second.ports).not.toContain(held);
    expect(await redis.get(keys.portLease('h2', held))).toBe('first');
    await first.release();
    await second.release();
  });

  it('puts a TTL on every lease so a crashed owner cannot strand a port', async () => {
    const { redis, keys } = testRedis();
    const leaser = new PortLeaser(redis, keys, { host: 'h3', ttlMs: 5_000 });
    const lease = await leaser.lease(2, 'owner');
    for (const port of lease.ports) {
      const ttl = await redis.pttl(keys.portLease('h3', port));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(5_000);
    }
    // Releasing is owner-checked: a lease another owner took over is left alone.
    await redis.set(keys.portLease('h3', lease.ports[0]!), 'someone-else');
    await lease.release();
    expect(await redis.get(keys.portLease('h3', lease.ports[0]!))).toBe('someone-else');
    expect(await redis.exists(keys.portLease('h3', lease.ports[1]!))).toBe(0);
  });
});
