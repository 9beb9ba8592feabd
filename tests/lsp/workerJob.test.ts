import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { git, makeRepo } from '../support/gitRepo.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';

const FILES = {
  'tsconfig.json': JSON.stringify({
    compilerOptions: { strict: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', noEmit: true },
  }),
  'package.json': JSON.stringify({ name: 'fixture', type: 'module' }),
  'src/math.ts': 'export function add(a: number, b: number): number {\n  return a + b;\n}\n',
  'src/main.ts': "import { add } from './math.js';\n\nexport const total: number = add(1, 2);\n",
};
const REPORT = { summary: 'total adds more', unresolved: [], claimed_checks: [] };

describe('diagnostics in a worker job', { timeout: SLOW_TEST_MS }, () => {
  it("sends back a worker's Report that leaves an error its edit brought: the fix that follows is what gets committed", async () => {
    const orca = await OrcaTestEnv.open();
    const repo = makeRepo(FILES);
    const script = path.join(orca.dir('scripts'), 'worker.json');
    writeFileSync(
      script,
      JSON.stringify({
        agents: [
          {
            when: { role: 'worker' },
            turns: [
              { tools: [{ name: 'Read', input: { file_path: 'src/main.ts' } }] },
              {
                tools: [
                  { name: 'Edit', input: { file_path: 'src/main.ts', old_string: 'add(1, 2)', new_string: 'add(1, 2) + multiply(2, 3)' } },
                ],
              },
              // Reports at once, as a model sure of its edit might: the host sends it back.
              { tools: [{ name: 'Report', input: REPORT }] },
              { tools: [{ name: 'Edit', input: { file_path: 'src/main.ts', old_string: 'multiply(2, 3)', new_string: 'add(2, 3)' } }] },
              { tools: [{ name: 'Report', input: REPORT }] },
            ],
          },
        ],
      }),
    );
    const run = await orca.cli(['agent', '--role', 'worker', 'make total bigger', '--repo', repo, '--script', script, '--json'], {
      env: { ORCA_LSP: 'on' },
    });
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout.trim()) as { status: string; commit: string };
    expect(out.status).toBe('completed');
    expect(git(repo, 'show', `${out.commit}:src/main.ts`)).toContain('add(1, 2) + add(2, 3)');
  });
});
