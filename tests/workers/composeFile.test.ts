import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { packageRoot } from '../../shared/core/runtime/compiledEntry.js';

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: Array<string | { type?: string; source?: string }>;
  depends_on?: Record<string, unknown>;
}

const root = packageRoot();
const compose = parse(readFileSync(path.join(root, 'compose.yaml'), 'utf8')) as {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
};

/** A volume entry that mounts a folder of the machine compose runs on (a bind), not a named volume. */
function isHostPath(volume: string | { type?: string; source?: string }): boolean {
  if (typeof volume !== 'string') return volume.type === 'bind' || /^[./~]/.test(volume.source ?? '');
  const source = volume.split(':')[0]!;
  return /^[./~$]/.test(source) || !(source in (compose.volumes ?? {}));
}

/**
 * compose.yaml, checked by parsing it (Docker does not run here; the same topology — Redis, a git
 * server, workers that see only those — is run for real in tests/workers/sharedHosts.test.ts).
 */
describe('compose.yaml', () => {
  it('brings Redis, a git server for the shared remote and workers built from the Dockerfile', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['git', 'redis', 'worker']);
    expect(compose.services.redis!.image).toMatch(/^redis:7/);
    expect(compose.services.redis!.command).toEqual(expect.arrayContaining(['--maxmemory-policy', 'noeviction']));

    const git = compose.services.git!;
    expect(git.build?.dockerfile).toBe('docker/git-server.Dockerfile');
    expect(git.ports).toContain('127.0.0.1:9418:9418');
    const gitImage = readFileSync(path.join(root, git.build!.dockerfile), 'utf8');
    expect(gitImage).toMatch(/^FROM alpine:/m);
    expect(gitImage).toContain('git-daemon');
    expect(readFileSync(path.join(root, 'docker', 'git-server.sh'), 'utf8')).toContain('--enable=receive-pack');

    const worker = compose.services.worker!;
    expect(worker.build?.dockerfile).toBe('Dockerfile');
    expect(worker.command).toEqual(['worker', '--concurrency', '4']);
    expect(worker.environment?.REDIS_URL).toBe('redis://redis:6379');
    // The URL a run names (the published port) is rewritten to the git service inside the network.
    expect(worker.environment?.GIT_CONFIG_KEY_0).toBe('url.git://git:9418/.insteadOf');
    expect(worker.environment?.GIT_CONFIG_VALUE_0).toBe('git://127.0.0.1:9418/');
    expect(Object.keys(worker.depends_on ?? {}).sort()).toEqual(['git', 'redis']);
  });

  it('mounts no host path into a worker, and builds orca in the image rather than at start', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      expect((service.volumes ?? []).filter(isHostPath), `${name} mounts a folder of the host`).toEqual([]);
    }
    expect(compose.services.worker!.volumes ?? []).toEqual([]);
    const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^RUN npm ci --ignore-scripts$/m);
    expect(dockerfile).toMatch(/^RUN npm run build/m);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["node", "dist\/coordinator\/cli\.js"\]$/m);
    expect(JSON.stringify(compose.services.worker)).not.toContain('npm ci');
  });
});
