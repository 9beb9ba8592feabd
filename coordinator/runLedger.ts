import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { isSlug } from '../shared/core/git/slug.js';
import type { OrcaHome } from '../shared/core/runtime/orcaHome.js';
import { listDir } from './clean/listDir.js';

/**
 * The runs this installation made: one file per run in `$ORCA_HOME/runs`, written by `orca run`
 * and `orca agent` before their first job is queued and again when they end. An installation is
 * an ORCA_HOME with an ORCA_PREFIX: `orca clean` touches a repository's branches and refs only for
 * runs recorded here under its own prefix, so runs of another ORCA_HOME or ORCA_PREFIX sharing the
 * Redis or the repository are never its to remove. The record outlives Redis (a private Redis
 * goes with its run): it says on its own that the run ended.
 */
export const LedgerEntrySchema = z.object({
  run_id: z.string().refine(isSlug, 'is not a run id'),
  /** `run` for `orca run`, `agent` for `orca agent`. */
  kind: z.enum(['run', 'agent']),
  /** The ORCA_PREFIX its Redis keys are under. */
  prefix: z.string().min(1),
  host: z.string(),
  /** The repository's root, as the run was given it. */
  repo: z.string().min(1),
  /** The commit it started from. */
  base: z.string().optional(),
  /** The branch that holds what the run made: the integration branch, or an `orca agent`'s task branch. */
  result_branch: z.string().optional(),
  /** The git remote the run was shared over (`--share`): `orca clean` deletes the run's refs there. */
  share: z.string().optional(),
  created_at: z.number(),
  ended: z.object({ status: z.string(), at: z.number() }).optional(),
});
export type LedgerEntry = z.infer<typeof LedgerEntrySchema>;

/** Records a run as this installation's; a record already there (a resumed run) is kept as it is. */
export function recordRun(home: OrcaHome, entry: Omit<LedgerEntry, 'host' | 'created_at'>): void {
  if (!readEntry(home, entry.run_id)) write(home, { ...entry, host: os.hostname(), created_at: Date.now() });
}

/** Records how a run ended (a run with no record of its own, resumed from another ORCA_HOME, gets one). */
export function recordRunEnd(home: OrcaHome, entry: Omit<LedgerEntry, 'host' | 'created_at'>, status: string): void {
  const known = readEntry(home, entry.run_id);
  write(home, { ...(known ?? { ...entry, host: os.hostname(), created_at: Date.now() }), ended: { status, at: Date.now() } });
}

export interface Ledger {
  entries: Map<string, LedgerEntry>;
  /** Files that are not records orca can read: named, never counted as a run of anyone's. */
  unreadable: Array<{ file: string; why: string }>;
}

export function readLedger(home: OrcaHome): Ledger {
  const ledger: Ledger = { entries: new Map(), unreadable: [] };
  for (const name of listDir(home.runsRoot())) {
    if (!name.endsWith('.json')) continue;
    const file = path.join(home.runsRoot(), name);
    const parsed = parse(file);
    if (parsed.success && `${parsed.data.run_id}.json` === name) ledger.entries.set(parsed.data.run_id, parsed.data);
    else ledger.unreadable.push({ file, why: parsed.success ? `it records run ${parsed.data.run_id}` : parsed.why });
  }
  return ledger;
}

export function forgetRun(home: OrcaHome, runId: string): void {
  rmSync(home.runRecord(runId), { force: true });
}

function readEntry(home: OrcaHome, runId: string): LedgerEntry | undefined {
  const parsed = parse(home.runRecord(runId));
  return parsed.success ? parsed.data : undefined;
}

function parse(file: string): { success: true; data: LedgerEntry } | { success: false; why: string } {
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch (error) {
    return { success: false, why: (error as NodeJS.ErrnoException).code ?? String(error) };
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { success: false, why: 'it is not JSON' };
  }
  const parsed = LedgerEntrySchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { success: false, why: `${issue?.path.join('.') || 'record'}: ${issue?.message ?? 'invalid'}` };
  }
  return { success: true, data: parsed.data };
}

/** Whole or not at all: written beside, then renamed over. */
function write(home: OrcaHome, entry: LedgerEntry): void {
  mkdirSync(home.runsRoot(), { recursive: true });
  const file = home.runRecord(entry.run_id);
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, `${JSON.stringify(LedgerEntrySchema.parse(entry), null, 2)}\n`);
  renameSync(partial, file);
}
