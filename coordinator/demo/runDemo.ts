import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AgentSession } from '../../shared/agent/session.js';
import { runSession } from '../../shared/agent/query.js';
import { createModel } from '../../shared/model/createModel.js';
import { loadScriptFile } from '../../shared/model/scriptFile.js';
import { toolsNamed } from '../../shared/tools/catalog.js';
import { builtinRole } from '../../roles/builtinRoles.js';
import { outputSchema } from '../../roles/outputs.js';
import { eventLine } from '../eventLine.js';
import { createSampleRepo } from './sampleRepo.js';

const TASK =
  'Replace the private toDollars helpers in src/cart.ts, src/invoice.ts and src/report.ts with formatMoney from ' +
  'src/money.ts, so large amounts get thousands separators, and add a test for a large amount to each module.';

/** The offline demo: one scripted worker agent refactors a sample repository for real. */
async function main(): Promise<number> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'orca-demo-'));
  const repo = createSampleRepo(path.join(work, 'shop-lib'));
  console.log('orca demo: Scripted model, no LLM is used. To run with Claude, set ANTHROPIC_API_KEY and drop --script.');
  console.log(`sample repository: ${repo.dir} (base ${repo.base.slice(0, 12)})`);

  const role = builtinRole('worker')!;
  const script = await loadScriptFile(fileURLToPath(new URL('./single-agent-script.json', import.meta.url)));
  const session = new AgentSession({
    role: role.name,
    model: createModel({ script, identity: { role: role.name, prompt: TASK } }),
    systemPrompt: role.prompt,
    tools: toolsNamed(role.tools.filter((name) => ['Read', 'Edit', 'Write', 'Glob', 'Grep', 'Bash'].includes(name))),
    outputSchema: outputSchema(role.output),
    workspaceRoot: repo.dir,
    sessionDir: path.join(work, 'session'),
    mode: role.mode,
  });
  const result = await runSession(session, TASK, (event) => {
    const line = eventLine(event, 'worker');
    if (line) console.log(line);
  });

  console.log('\nchecking the result independently: npm test in the sample repository');
  let testsPass = true;
  try {
    execFileSync('npm', ['test', '--silent'], { cwd: repo.dir, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch {
    testsPass = false;
  }
  const diffstat = execFileSync('git', ['diff', '--stat'], { cwd: repo.dir, encoding: 'utf8' });
  console.log(diffstat.trimEnd());
  console.log(`\nagent: ${result.reason}; tests on the changed tree: ${testsPass ? 'pass' : 'FAIL'}`);
  if (result.report) console.log(`report: ${JSON.stringify(result.report, null, 2)}`);
  return result.reason === 'report' && testsPass ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`orca demo: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  },
);
