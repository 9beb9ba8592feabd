import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SandboxMode } from '../../shared/core/runtime/sandboxMode.js';
import { DEFAULT_CHECK_NETWORK } from '../../shared/core/sandbox/checkNetwork.js';
import { DEFAULT_ASK_TIMEOUT_MS } from '../../shared/infra/queue/agentJob.js';
import { sandboxStatus } from '../../shared/policy/permissions/sandboxLine.js';
import { runCommand } from '../runCommand.js';
import { sandboxChoice } from '../sandboxOption.js';
import { createSampleRepo } from './sampleRepo.js';

const TASK =
  'Replace the private toDollars helpers in src/cart.ts, src/invoice.ts and src/report.ts with formatMoney from ' +
  'src/money.ts, so large amounts get thousands separators, and add a test for a large amount to each module.';

/**
 * The offline demo: a sample TypeScript repository, and the whole pipeline on it with the
 * Scripted model: explore, plan, three workers in their own worktrees doing a real multi-file
 * refactor, merges, the sample's tests on the merged tree, the Verification agent, the report.
 */
async function main(): Promise<number> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'orca-demo-'));
  const repo = createSampleRepo(path.join(work, 'shop-lib'));
  process.stderr.write(
    [
      'orca demo: this run uses the Scripted model. No LLM is used: every agent step is a real tool call',
      '(Grep, Read, Edit, Bash) played from coordinator/demo/demo-script.json.',
      'To run with Claude instead: export ANTHROPIC_API_KEY=… and run',
      `  npx orca run "<your task>" --repo <your repo>`,
      `sample repository: ${repo.dir} (base ${repo.base.slice(0, 12)})`,
      '',
    ].join('\n'),
  );
  const code = await runCommand({
    task: TASK,
    repo: repo.dir,
    workers: 2,
    concurrency: 2,
    localWorkers: true,
    script: fileURLToPath(new URL('./demo-script.json', import.meta.url)),
    checks: [],
    checkNetwork: DEFAULT_CHECK_NETWORK,
    approve: false,
    json: false,
    allowDirty: false,
    asks: { timeoutMs: DEFAULT_ASK_TIMEOUT_MS, nobody: false },
    yesTo: [],
    // The demo leaves the user's memory alone: it neither reads nor keeps cards.
    memory: false,
    // ORCA_SANDBOX decides, as for orca run; the sandbox line says what the demo's commands run in.
    ...demoSandbox(),
  });
  process.stderr.write(`\nThe merged work is on the integration branch in ${repo.dir} (git log --graph --all).\n`);
  return code;
}

/**
 * ORCA_SANDBOX decides, as for orca run; on a host without a sandbox the demo runs knowingly
 * without one (orca's own sample repository, the Scripted model), and its start line says so.
 */
function demoSandbox(): { sandbox: SandboxMode; sandboxSource: string } {
  const choice = sandboxChoice(undefined);
  if (choice.sandbox === 'off') return choice;
  const status = sandboxStatus(choice.sandbox);
  if (!status.refusal) return choice;
  return {
    sandbox: 'off',
    sandboxSource: `the demo, knowingly: ${status.line.replace(/^sandbox: none /, 'no sandbox here ')}, and it runs only orca's sample repository with the Scripted model`,
  };
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`orca demo: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  },
);
