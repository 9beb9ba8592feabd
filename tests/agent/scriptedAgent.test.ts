import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createSampleRepo } from '../../coordinator/demo/sampleRepo.js';
import { builtinRole } from '../../roles/builtinRoles.js';
import { outputSchema } from '../../roles/outputs.js';
import type { AgentEvent } from '../../shared/core/events/agentEvent.js';
import { runSession } from '../../shared/core/loop/query.js';
import { AgentSession } from '../../shared/core/loop/session.js';
import { createModel } from '../../shared/core/model/createModel.js';
import { loadScriptFile } from '../../shared/core/model/scriptFile.js';
import { toolsNamed } from '../../shared/tools/catalog.js';
import { tempDir } from '../support/tempDir.js';

const SCRIPT = fileURLToPath(new URL('../../coordinator/demo/single-agent-script.json', import.meta.url));

describe('one scripted agent through the loop on a sample repository', () => {
  it('greps, reads, edits, runs the tests and reports; the change is real and the tests pass', async () => {
    const work = tempDir('orca-agent-');
    const repo = createSampleRepo(path.join(work, 'shop-lib'));
    const role = builtinRole('worker')!;
    const prompt = 'Use formatMoney from src/money.ts in cart, invoice and report.';
    const session = new AgentSession({
      role: role.name,
      model: createModel({ script: await loadScriptFile(SCRIPT), identity: { role: role.name, prompt } }),
      systemPrompt: role.prompt,
      tools: toolsNamed(['Read', 'Edit', 'Write', 'Glob', 'Grep', 'Bash']),
      outputSchema: outputSchema(role.output),
      workspaceRoot: repo.dir,
      sessionDir: path.join(work, 'session'),
      mode: role.mode,
    });
    const events: AgentEvent[] = [];
    const result = await runSession(session, prompt, (event) => events.push(event));

    expect(result.reason).toBe('report');
    const called = events.filter((e) => e.type === 'tool_call').map((e) => (e as { name: string }).name);
    for (const tool of ['Grep', 'Read', 'Edit', 'Bash', 'Report']) expect(called).toContain(tool);
    const failures = events.filter((e) => e.type === 'tool_result' && e.is_error);
    expect(failures).toEqual([]);

    // The host's own record of the test run: the command and its real exit code.
    const bash = session.ledger.byName('Bash');
    expect(bash).toHaveLength(1);
    expect((bash[0]!.data as { exitCode: number }).exitCode).toBe(0);

    const cart = readFileSync(path.join(repo.dir, 'src/cart.ts'), 'utf8');
    expect(cart).toContain("import { formatMoney } from './money.js';");
    expect(cart).not.toContain('toDollars');
    // Independently of the agent: the tests pass on the changed tree.
    execFileSync('npm', ['test', '--silent'], { cwd: repo.dir, stdio: 'pipe' });
    expect(events.at(-1)).toMatchObject({ type: 'end', reason: 'report' });
  });
});
