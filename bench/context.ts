import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import type { CompactionConfigInput } from '../shared/context/compaction/compactionConfig.js';
import { createContextAssembler } from '../shared/context/prompt/assembler.js';
import { staticSystemPrompt } from '../shared/context/prompt/staticPrompt.js';
import type { AgentEvent } from '../shared/core/events/agentEvent.js';
import { runSession } from '../shared/core/loop/query.js';
import { AgentSession } from '../shared/core/loop/session.js';
import { ScriptedModel } from '../shared/core/model/scripted.js';
import { parseScript, type ScriptTurn } from '../shared/core/model/scriptFile.js';
import { totalInputTokens, type Usage } from '../shared/core/model/usage.js';
import { bashTool } from '../shared/tools/bash.js';
import { editTool } from '../shared/tools/edit.js';
import { globTool } from '../shared/tools/glob.js';
import { grepTool } from '../shared/tools/grep.js';
import { readTool } from '../shared/tools/read.js';
import { skillTool } from '../shared/tools/skill.js';

/**
 * Context benchmark: one 40-turn worker session, played by the Scripted model (no LLM) on a
 * generated repository, twice: with every compaction level off, and with the default levels on a
 * window small enough for all of them to fire. It reports, per turn, the input tokens of the
 * request (uncached + cache reads + cache writes, as the Scripted model's simulated prompt cache
 * counts them) and, for both runs, the share of input tokens read from the cacheable prefix
 * (cache reads ÷ all input tokens). The target for that share is 0.9 or more.
 *
 * Run alone: `npm run build && node dist/bench/context.js`. The bench runner calls
 * `runContextBenchmark()` and `formatContextBenchmark()`.
 */
export const CACHE_SHARE_TARGET = 0.9;
/**
 * The default window (200,000) is scaled down so that a 40-turn session reaches every level: a
 * 60,000-token window with the session's 16,000 reserved for output leaves 44,000 usable, so snip
 * fires at 22,000, microcompact at 26,400, collapse at 33,000 and autocompact at 41,000 (the
 * 13,000-token buffer scaled down with the window, to 3,000). The fractions are the defaults.
 */
export const BENCH_COMPACTION: CompactionConfigInput = { contextWindow: 60_000, autocompactBufferTokens: 3_000 };

export interface ContextBenchTurn {
  turn: number;
  withoutCompaction: number;
  withCompaction: number;
  /** Compaction levels that fired before this turn's call. */
  compactions: string[];
}

export interface ContextBenchRun {
  inputTokens: number;
  cacheReadTokens: number;
  cacheShare: number;
  peakRequest: number;
}

export interface ContextBenchResult {
  turns: ContextBenchTurn[];
  without: ContextBenchRun;
  with: ContextBenchRun;
  contextWindow: number;
  target: number;
  meetsTarget: boolean;
  compactions: Array<{ turn: number; level: string; tokensBefore: number; tokensAfter: number }>;
}

const MODULES = 18;

export async function runContextBenchmark(
  options: { turns?: number; compaction?: CompactionConfigInput } = {},
): Promise<ContextBenchResult> {
  const turnCount = options.turns ?? 40;
  const compaction = options.compaction ?? BENCH_COMPACTION;
  const script = benchScript(turnCount);
  const off: CompactionConfigInput = { snipAt: 2, microcompactAt: 2, collapseAt: 2, autocompact: false };
  const without = await playSession(script, { ...compaction, ...off });
  const withIt = await playSession(script, compaction);

  const turns: ContextBenchTurn[] = without.perTurn.map((tokens, index) => ({
    turn: index + 1,
    withoutCompaction: tokens,
    withCompaction: withIt.perTurn[index] ?? 0,
    compactions: withIt.compactions.filter((item) => item.turn === index + 1).map((item) => item.level),
  }));
  return {
    turns,
    without: without.summary,
    with: withIt.summary,
    contextWindow: compaction.contextWindow ?? 200_000,
    target: CACHE_SHARE_TARGET,
    meetsTarget: withIt.summary.cacheShare >= CACHE_SHARE_TARGET && without.summary.cacheShare >= CACHE_SHARE_TARGET,
    compactions: withIt.compactions,
  };
}

export function formatContextBenchmark(result: ContextBenchResult): string {
  const pad = (value: string | number, width: number) => String(value).padStart(width);
  const lines = [
    `Context benchmark: ${result.turns.length}-turn scripted session (Scripted model, no LLM), context window ${result.contextWindow.toLocaleString('en-US')} tokens`,
    '',
    `${pad('turn', 4)}  ${pad('input, no compaction', 20)}  ${pad('input, compaction', 17)}  compaction before the call`,
    ...result.turns.map(
      (turn) =>
        `${pad(turn.turn, 4)}  ${pad(turn.withoutCompaction.toLocaleString('en-US'), 20)}  ${pad(turn.withCompaction.toLocaleString('en-US'), 17)}  ${turn.compactions.join(', ')}`,
    ),
    '',
    `${pad('', 4)}  ${pad('no compaction', 20)}  ${pad('compaction', 17)}`,
    `${'total input tokens'.padEnd(24)}${pad(result.without.inputTokens.toLocaleString('en-US'), 14)}  ${pad(result.with.inputTokens.toLocaleString('en-US'), 17)}`,
    `${'largest request'.padEnd(24)}${pad(result.without.peakRequest.toLocaleString('en-US'), 14)}  ${pad(result.with.peakRequest.toLocaleString('en-US'), 17)}`,
    `${'cache reads / input'.padEnd(24)}${pad(result.without.cacheShare.toFixed(3), 14)}  ${pad(result.with.cacheShare.toFixed(3), 17)}   (target ≥ ${result.target})`,
    '',
    ...result.compactions.map(
      (item) =>
        `turn ${item.turn}: ${item.level} ${item.tokensBefore.toLocaleString('en-US')} → ${item.tokensAfter.toLocaleString('en-US')} tokens`,
    ),
    `cache share target ${result.meetsTarget ? 'met' : 'NOT met'}`,
  ];
  return lines.join('\n');
}

/** The turns: explore, fail a check, fix, pass, then keep reading and editing more modules. */
function benchScript(turnCount: number): ScriptTurn[] {
  const turns: ScriptTurn[] = [
    { text: 'Looking at the layout first.', tools: [{ name: 'Glob', input: { pattern: 'src/**/*.ts' } }] },
    { tools: [{ name: 'Grep', input: { pattern: 'export function total', path: 'src', output_mode: 'content', '-n': true } }] },
    { tools: [{ name: 'Bash', input: { command: 'make test' } }] },
  ];
  let module = 0;
  while (turns.length < turnCount - 1) {
    const name = `src/module${String(module % MODULES).padStart(2, '0')}.ts`;
    const step = turns.length % 6;
    if (step === 0) turns.push({ tools: [{ name: 'Read', input: { file_path: name, offset: 1, limit: 40 } }] });
    else if (step === 1) turns.push({ tools: [{ name: 'Read', input: { file_path: name } }] });
    else if (step === 2) {
      turns.push({
        text: `Adjusting ${name}.`,
        tools: [
          {
            name: 'Edit',
            input: {
              file_path: name,
              old_string: `return base${module % MODULES} * 2;`,
              new_string: `return base${module % MODULES} * 2 + 0;`,
            },
          },
        ],
      });
    } else if (step === 3)
      turns.push({ tools: [{ name: 'Bash', input: { command: module === 0 ? 'touch FIXED && make test' : 'make test' } }] });
    else if (step === 4)
      turns.push({
        tools: [{ name: 'Grep', input: { pattern: `helper${(module + 1) % MODULES}`, path: 'src', output_mode: 'files_with_matches' } }],
      });
    else {
      turns.push({ tools: [{ name: 'Read', input: { file_path: `src/module${String((module + 7) % MODULES).padStart(2, '0')}.ts` } }] });
      module += 1;
    }
  }
  turns.push({ text: 'Done.', tools: [{ name: 'Report', input: { summary: 'Adjusted the modules; make test passes.' } }] });
  return turns;
}

function makeBenchRepo(dir: string): void {
  mkdirSync(path.join(dir, 'src'), { recursive: true });
  for (let index = 0; index < MODULES; index += 1) {
    const lines = [
      `// Module ${index}: pricing helpers.`,
      `import { helper${(index + 1) % MODULES} } from './module${String((index + 1) % MODULES).padStart(2, '0')}.js';`,
      '',
    ];
    for (let fn = 0; fn < 40; fn += 1) {
      lines.push(
        `/** Computes part ${fn} of the total for module ${index}, in integer cents. */`,
        `export function total${index}_${fn}(items: Array<{ cents: number; qty: number }>): number {`,
        `  return items.reduce((sum, item) => sum + item.cents * item.qty + ${fn}, 0);`,
        '}',
        '',
      );
    }
    lines.push(`export function helper${index}(base${index}: number): number {`, `  return base${index} * 2;`, '}', '');
    writeFileSync(path.join(dir, 'src', `module${String(index).padStart(2, '0')}.ts`), lines.join('\n'));
  }
  writeFileSync(path.join(dir, 'Makefile'), 'test:\n\t@sh check.sh\n');
  writeFileSync(
    path.join(dir, 'check.sh'),
    'if [ -f FIXED ]; then echo "24 tests passed"; else echo "FAIL pricing.test: expected 1200, got 1199" >&2; exit 1; fi\n',
  );
  writeFileSync(path.join(dir, 'CLAUDE.md'), '# Pricing library\n\nMoney is integer cents. Run `make test` after every change.\n');
  mkdirSync(path.join(dir, '.claude', 'rules'), { recursive: true });
  writeFileSync(path.join(dir, '.claude', 'rules', 'src.md'), '---\npaths: src/**/*.ts\n---\nKeep every function pure; no I/O in src/.\n');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('-c', 'user.name=bench', '-c', 'user.email=bench@orca.invalid', 'commit', '-q', '-m', 'bench repository');
}

async function playSession(
  turns: ScriptTurn[],
  compaction: CompactionConfigInput,
): Promise<{ perTurn: number[]; summary: ContextBenchRun; compactions: ContextBenchResult['compactions'] }> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'orca-bench-context-'));
  try {
    const repo = path.join(scratch, 'repo');
    mkdirSync(repo);
    makeBenchRepo(repo);
    const prompt = 'Make the pricing modules pass `make test` and keep them consistent.';
    const model = new ScriptedModel(parseScript({ agents: [{ when: { role: 'worker' }, turns }] }, 'context benchmark script'), {
      role: 'worker',
      prompt,
    });
    const session = new AgentSession({
      role: 'worker',
      model,
      systemPrompt: staticSystemPrompt('You are a Worker agent: implement the task in your worktree and prove it with checks.'),
      tools: [readTool, editTool, globTool, grepTool, bashTool, skillTool],
      outputSchema: z.object({ summary: z.string() }),
      workspaceRoot: repo,
      sessionDir: path.join(scratch, 'session'),
      mode: 'full-access',
      limits: { maxTurns: turns.length + 5 },
      context: createContextAssembler({ homeDir: path.join(scratch, 'home'), compaction }),
    });
    const usages: Usage[] = [];
    const compactions: ContextBenchResult['compactions'] = [];
    let turn = 0;
    const result = await runSession(session, prompt, (event: AgentEvent) => {
      if (event.type === 'turn_start') turn = event.turn;
      if (event.type === 'usage') usages.push(event.usage);
      if (event.type === 'compaction')
        compactions.push({ turn, level: event.level, tokensBefore: event.tokens_before, tokensAfter: event.tokens_after });
    });
    if (result.reason !== 'report') throw new Error(`the benchmark session ended with ${result.reason}: ${result.detail}`);
    const perTurn = usages.map(totalInputTokens);
    const inputTokens = perTurn.reduce((sum, tokens) => sum + tokens, 0);
    const cacheReadTokens = usages.reduce((sum, usage) => sum + usage.cache_read_tokens, 0);
    return {
      perTurn,
      summary: {
        inputTokens,
        cacheReadTokens,
        cacheShare: inputTokens === 0 ? 0 : cacheReadTokens / inputTokens,
        peakRequest: Math.max(...perTurn),
      },
      compactions,
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runContextBenchmark().then(
    (result) => {
      console.log(formatContextBenchmark(result));
    },
    (error: unknown) => {
      console.error(`context benchmark failed: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = 1;
    },
  );
}
