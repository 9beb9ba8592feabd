import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { packageRoot } from '../shared/core/runtime/compiledEntry.js';
import { benchTempRoot } from './benchEnv.js';
import { makeLargeRepo } from './largeRepo.js';
import type { BenchSection, Figure, SectionContext } from './section.js';
import { abortSection } from './sections/abort.js';
import { agentsSection } from './sections/agents.js';
import { cliSection } from './sections/cli.js';
import { contextSection } from './sections/context.js';
import { diagnosticsSection } from './sections/diagnostics.js';
import { efficiencySection } from './sections/efficiency.js';
import { fanoutSection } from './sections/fanout.js';
import { gitprocsSection } from './sections/gitprocs.js';
import { grepSection } from './sections/grep.js';
import { historySection } from './sections/history.js';
import { mergeSection } from './sections/merge.js';
import { redisSection } from './sections/redis.js';
import { rssSection } from './sections/rss.js';
import { sharedSection } from './sections/shared.js';
import { singleSection } from './sections/single.js';
import { singleAcpSection } from './sections/singleAcp.js';
import { sparseSection } from './sections/sparse.js';
import { startSection } from './sections/start.js';
import { start100kSection } from './sections/start100k.js';
import { round } from './stats.js';

/**
 * `npm run bench`: every benchmark of issue 9, each figure beside the reference it is measured
 * against in the same run, printed as a table and written to bench/results.json. Not part of
 * `npm test`. `--only efficiency,grep` runs some of them; `--quick` runs fewer repetitions (for
 * trying the harness, not for figures).
 */

/** Every section, in the order a whole run takes them (the ones on the generated repository first). */
const SECTIONS: readonly BenchSection[] = [
  grepSection,
  startSection,
  start100kSection,
  mergeSection,
  rssSection,
  sparseSection,
  efficiencySection,
  abortSection,
  agentsSection,
  redisSection,
  sharedSection,
  contextSection,
  diagnosticsSection,
  gitprocsSection,
  historySection,
  fanoutSection,
  singleSection,
  singleAcpSection,
  cliSection,
];

const program = new Command('bench')
  .option('--only <names>', `comma-separated sections: ${SECTIONS.map((section) => section.name).join(', ')}`)
  .option('--quick', 'fewer repetitions: checks the benchmarks run, gives no figures worth keeping', false)
  .option('--out <file>', 'where to write the results', path.join(packageRoot(), 'bench', 'results.json'));

async function main(): Promise<void> {
  const options = program.parse(process.argv).opts<{ only?: string; quick: boolean; out: string }>();
  const chosen = chosenSections(options.only);
  const quick = options.quick;
  const started = Date.now();
  const machine = {
    cpus: os.cpus().length,
    memory_gb: round(os.totalmem() / 2 ** 30, 1),
    node: process.version,
    temp_root: benchTempRoot(),
    load_average_at_start: os.loadavg().map((load) => round(load, 2)),
  };
  const figures: Figure[] = [];
  const details: Record<string, unknown> = {};
  const say = (line: string) => process.stderr.write(`${line}\n`);
  say(
    `orca benchmarks (${chosen.map((section) => section.name).join(', ')}) on ${machine.cpus} CPUs, load ${machine.load_average_at_start.join(' ')}; files under ${machine.temp_root}`,
  );
  const context: SectionContext = { quick, timed: (label, fn) => timed(say, label, fn) };
  const lastLarge = chosen.findLast((section) => section.usesLargeRepo);
  try {
    for (const section of chosen) {
      if (section.usesLargeRepo && !context.large) {
        context.largeRoot = mkdtempSync(path.join(benchTempRoot(), 'orca-bench-large-'));
        // 20,000 files with --quick too: made in about a second, and the sparse section names files of that layout.
        context.large = timedSync(say, 'generating the 20,000-file repository', () => makeLargeRepo(path.join(context.largeRoot!, 'repo')));
      }
      const outcome = await section.run(context);
      figures.push(...outcome.figures);
      Object.assign(details, outcome.details);
      // The large sections come first: their repository goes before the rest run.
      if (section === lastLarge) removeLarge(context);
    }
  } finally {
    removeLarge(context);
  }

  const report = {
    date: new Date(started).toISOString(),
    duration_s: round((Date.now() - started) / 1000),
    machine: { ...machine, load_average_at_end: os.loadavg().map((load) => round(load, 2)) },
    quick,
    figures: Object.fromEntries(figures.map(({ key, ...rest }) => [key, rest])),
    details,
  };
  writeFileSync(options.out, `${JSON.stringify(options.only ? mergedWith(options.out, report) : report, null, 2)}\n`);
  process.stdout.write(
    `${table(figures)}\n\nload average ${machine.load_average_at_start.join(' ')} → ${report.machine.load_average_at_end.join(' ')}; ${report.duration_s} s; written to ${options.out}\n`,
  );
}

/** The sections `--only` names, in the order they run; all of them without it; an unknown name is refused, naming the known ones. */
function chosenSections(only: string | undefined): BenchSection[] {
  if (!only) return [...SECTIONS];
  const names = only.split(',').map((name) => name.trim());
  const known = SECTIONS.map((section) => section.name);
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length > 0) throw new Error(`unknown section(s) ${unknown.join(', ')}: choose from ${known.join(', ')}`);
  return SECTIONS.filter((section) => names.includes(section.name));
}

function removeLarge(context: SectionContext): void {
  if (context.largeRoot) rmSync(context.largeRoot, { recursive: true, force: true });
  context.largeRoot = undefined;
  context.large = undefined;
}

/**
 * A run of some sections (`--only`) updates their figures in an existing results file and keeps
 * the others (each figure says which run measured it: `measured`), rather than dropping them.
 */
function mergedWith<R extends { date: string; figures: Record<string, unknown>; details: Record<string, unknown> }>(
  file: string,
  report: R,
): R {
  if (!existsSync(file)) return report;
  const previous = JSON.parse(readFileSync(file, 'utf8')) as Partial<R>;
  const stamp = (figures: Record<string, unknown>, date: string | undefined) =>
    Object.fromEntries(Object.entries(figures).map(([key, figure]) => [key, { measured: date, ...(figure as object) }]));
  return {
    ...report,
    figures: { ...stamp(previous.figures ?? {}, previous.date), ...stamp(report.figures, report.date) },
    details: { ...(previous.details ?? {}), ...report.details },
  };
}

function table(figures: Figure[]): string {
  const rows = [
    ['key', 'value', 'reference (same run)', 'target', 'met', 'note'],
    ...figures.map((f) => [
      f.key,
      String(f.value),
      f.reference ? `${f.reference.value} (${f.reference.what})` : '',
      f.target ?? 'reported',
      f.met === undefined ? '' : f.met ? 'yes' : 'NO',
      f.note,
    ]),
  ];
  const widths = rows[0]!.slice(0, 5).map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => [...row.slice(0, 5).map((cell, column) => cell.padEnd(widths[column]!)), row[5]].join('  ')).join('\n');
}

async function timed<T>(say: (line: string) => void, label: string, fn: () => Promise<T>): Promise<T> {
  const start = Date.now();
  say(`${label}…`);
  const result = await fn();
  say(`${label}: ${round((Date.now() - start) / 1000, 1)} s`);
  return result;
}

function timedSync<T>(say: (line: string) => void, label: string, fn: () => T): T {
  const start = Date.now();
  say(`${label}…`);
  const result = fn();
  say(`${label}: ${round((Date.now() - start) / 1000, 1)} s`);
  return result;
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
