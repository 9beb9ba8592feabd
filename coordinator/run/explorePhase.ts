import { CoordinatorOutputSchema, ExploreOutputSchema } from '../../roles/outputs.js';
import { mergeRanges } from '../../shared/core/files/lineRanges.js';
import { loadCommitView, repoPath } from '../../shared/infra/verify/evidence/commitView.js';
import { type CheckedFileRead, checkFileRead, type FileRead } from '../../shared/infra/verify/evidence/fileReadCheck.js';
import { type CheckedFinding, checkFinding, type Finding } from '../../shared/infra/verify/evidence/findingCheck.js';
import { fillBrief } from '../briefs/briefTemplate.js';
import { type RunContext, RunFailure } from './runContext.js';

/**
 * The run's first step: the coordinator agent names what to explore; Explore agents answer in
 * parallel, each from a read-only view of the base; their findings come back distilled into facts
 * with path:line and the files read (with hashes), never as transcripts. The host checks each
 * against the base commit before the planner sees it: what fails is kept, unverified, with why.
 */
export async function explorePhase(ctx: RunContext): Promise<void> {
  const { recorder, jobs } = ctx;
  await recorder.record({ type: 'run_phase', phase: 'exploring' });
  const first = await jobs.run({
    taskId: '_coordinator',
    title: 'decide what to explore',
    role: ctx.role('coordinator'),
    prompt: fillBrief('coordinator-brief', { task: ctx.task }),
    base: ctx.base,
  });
  if (first.status !== 'completed') throw new RunFailure(`the coordinator agent did not report: ${first.end_reason} (${first.detail})`);
  const { questions } = CoordinatorOutputSchema.parse(first.report);
  if (questions.length === 0) {
    ctx.say('nothing to explore: planning directly');
    await recorder.record({ type: 'findings', facts: [], files: [], questions: [] });
    return;
  }
  ctx.say(`exploring ${questions.length} question(s)`);
  const results = await Promise.all(
    questions.map((question, index) =>
      jobs.run({
        taskId: `_explore-${index + 1}`,
        title: question.slice(0, 120),
        role: ctx.role('explore'),
        prompt: fillBrief('explore-brief', { question, task: ctx.task }),
        base: ctx.base,
      }),
    ),
  );
  const cited: Array<{ finding: Finding; roots: string[] }> = [];
  const files = new Map<string, FileRead>();
  const open: string[] = [];
  results.forEach((result, index) => {
    if (result.status !== 'completed') {
      open.push(`${questions[index]} (its Explore agent ended: ${result.end_reason})`);
      return;
    }
    const report = ExploreOutputSchema.parse(result.report);
    // An absolute path in its evidence may name its own view of the base, or the repository.
    const roots = [...(result.worktree ? [result.worktree] : []), ctx.repo];
    for (const finding of report.findings) cited.push({ finding, roots });
    open.push(...report.questions);
    // The files an agent says it read count only with the hash it actually saw.
    for (const file of result.files_read) files.set(file.path, mergeRead(files.get(file.path), file));
  });
  const { facts, read } = await checkAgainstBase(ctx, cited, [...files.values()]);
  const unverified = facts.filter((fact) => !fact.verified);
  if (unverified.length > 0) {
    ctx.say(`${unverified.length} of ${facts.length} finding(s) not confirmed at the base commit: given to the planner as unverified`);
  }
  await recorder.record({ type: 'findings', facts, files: read, questions: open });
}

/**
 * Every finding and file read, checked against the base commit's objects (never a working tree):
 * the file exists, the lines are in it, the code the fact names is near them; the bytes read are
 * the base's.
 */
async function checkAgainstBase(
  ctx: RunContext,
  cited: ReadonlyArray<{ finding: Finding; roots: string[] }>,
  files: readonly FileRead[],
): Promise<{ facts: CheckedFinding[]; read: CheckedFileRead[] }> {
  const wanted = new Set(files.map((file) => file.path));
  for (const { finding, roots } of cited) {
    const where = repoPath(finding.evidence.replace(/:\d+(-\d+)?$/, ''), roots);
    if ('path' in where) wanted.add(where.path);
  }
  const view = await loadCommitView(ctx.repo, ctx.base, wanted);
  return {
    facts: cited.map(({ finding, roots }) => checkFinding({ fact: finding.fact, evidence: finding.evidence }, view, roots)),
    read: await Promise.all(files.map((file) => checkFileRead(file, view))),
  };
}

/** Two agents' reads of one file: a whole view of the same bytes beats a partial one; partial views of them add up. */
function mergeRead(known: FileRead | undefined, file: FileRead): FileRead {
  if (!known || known.hash !== file.hash) return known ?? { ...file };
  if (!known.partial) return known;
  if (!file.partial) return { ...file };
  return { ...known, seen: mergeRanges(known.seen ?? [], file.seen ?? []) };
}
