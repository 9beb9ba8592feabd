import { CoordinatorOutputSchema, ExploreOutputSchema } from '../../roles/outputs.js';
import { fillPrompt } from '../prompts/promptTemplate.js';
import { type RunContext, RunFailure } from './runContext.js';

/**
 * The run's first step: the coordinator agent names what to explore; Explore agents answer in
 * parallel, each from a read-only view of the base; their findings come back distilled into facts
 * with path:line and the files read (with hashes), never as transcripts.
 */
export async function explorePhase(ctx: RunContext): Promise<void> {
  const { recorder, jobs } = ctx;
  await recorder.record({ type: 'run_phase', phase: 'exploring' });
  const first = await jobs.run({
    taskId: '_coordinator',
    title: 'decide what to explore',
    role: ctx.role('coordinator'),
    prompt: fillPrompt('coordinator', { task: ctx.task }),
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
        prompt: fillPrompt('explore', { question, task: ctx.task }),
        base: ctx.base,
      }),
    ),
  );
  const facts: Array<{ fact: string; evidence: string }> = [];
  const files = new Map<string, { hash: string; partial: boolean }>();
  const open: string[] = [];
  results.forEach((result, index) => {
    if (result.status !== 'completed') {
      open.push(`${questions[index]} (its Explore agent ended: ${result.end_reason})`);
      return;
    }
    const report = ExploreOutputSchema.parse(result.report);
    facts.push(...report.findings);
    open.push(...report.questions);
    // The files an agent says it read count only with the hash it actually saw.
    for (const file of result.files_read) {
      const known = files.get(file.path);
      // A whole view of the same bytes beats a partial one.
      if (!known || (known.partial && !file.partial && known.hash === file.hash))
        files.set(file.path, { hash: file.hash, partial: file.partial });
    }
  });
  await recorder.record({
    type: 'findings',
    facts,
    files: [...files].map(([path, seen]) => ({ path, hash: seen.hash, partial: seen.partial })),
    questions: open,
  });
}
