import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compiledEntry } from '../../shared/core/runtime/compiledEntry.js';

// The CLI the tests and users run is esbuild's bundle of tsc's entry (scripts/bundle-cli.mjs).
const ENTRY = compiledEntry('coordinator/cli.ts');
const CHUNKS = path.join(path.dirname(ENTRY), 'cli-chunks');
const OUTPUTS = [
  ENTRY,
  ...readdirSync(CHUNKS)
    .filter((name) => name.endsWith('.js'))
    .map((name) => path.join(CHUNKS, name)),
];
// What the bundle script writes for a module's own location: the file, from a chunk or from the entry.
const OWN_URL = /new URL\(__orcaChunkUrl\.includes\("\/cli-chunks\/"\) \? ("[^"]*") : ("[^"]*"), __orcaChunkUrl\)/g;

describe('the CLI as one bundle (scripts/bundle-cli.mjs)', () => {
  it('is a bundle: the entry imports its chunks, and lazily imported commands are chunks of their own', () => {
    expect(readFileSync(ENTRY, 'utf8')).toMatch(/from "\.\/cli-chunks\/chunk-\w+\.js"/);
    expect(OUTPUTS.some((file) => /[\\/]agentCommandRun-\w+\.js$/.test(file))).toBe(true);
  });

  it("maps each output back to orca's TypeScript (through tsc's maps), for --enable-source-maps", () => {
    let mapped = 0;
    for (const output of OUTPUTS) {
      const map = JSON.parse(readFileSync(`${output}.map`, 'utf8')) as { sources: string[] };
      const own = map.sources.filter((source) => !source.includes('node_modules'));
      expect(
        own.every((source) => source.endsWith('.ts')),
        `${path.basename(output)}: ${own.join(', ')}`,
      ).toBe(true);
      mapped += own.length;
    }
    // `orca agent` alone bundles about 370 of orca's modules.
    expect(mapped).toBeGreaterThan(300);
  });

  it("gives every module its own file's location, which exists: prompts, scripts and package files are found", () => {
    let locations = 0;
    for (const output of OUTPUTS) {
      const inChunk = output !== ENTRY;
      for (const match of readFileSync(output, 'utf8').matchAll(OWN_URL)) {
        const relative = JSON.parse(inChunk ? match[1]! : match[2]!) as string;
        const file = path.resolve(path.dirname(output), relative);
        expect(existsSync(file), `${path.basename(output)} names ${relative}`).toBe(true);
        locations += 1;
      }
    }
    // loadDescription's callers alone are over forty: a rewrite that stopped matching would find none.
    expect(locations).toBeGreaterThan(40);
  });

  it("leaves no module reading the chunk's own import.meta.url: only the banner's", () => {
    for (const output of OUTPUTS) {
      const uses = readFileSync(output, 'utf8').split('import.meta.url').length - 1;
      expect(uses, path.basename(output)).toBe(2);
    }
  });

  it('has no package imported with import() as CommonJS: such a chunk carries only its default, not the names asked of it', () => {
    // `const { Cluster } = await import('ioredis')` was one: orca run on a Redis Cluster said "Cluster is not a constructor".
    const onlyDefault = OUTPUTS.filter((file) => /^export default require_\w+\(\);$/m.test(readFileSync(file, 'utf8')));
    expect(
      onlyDefault.map((file) => path.basename(file)),
      'import the package statically in a module of its own, and import that module lazily (shared/infra/redis/redisClusterPing.ts)',
    ).toEqual([]);
  });

  it('loads every chunk: no bundled module fails when it is evaluated', () => {
    const script = `
      const failed = [];
      for (const file of ${JSON.stringify(OUTPUTS.slice(1))}) {
        try { await import(file); } catch (error) { failed.push(file + ': ' + String(error).split('\\n')[0]); }
      }
      process.stdout.write(JSON.stringify(failed));
      process.exit(0);`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    expect(JSON.parse(out)).toEqual([]);
  });
});
