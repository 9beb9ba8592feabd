import type { RunnerCounts, RunnerParser } from './runnerParser.js';

/**
 * node:test's closing summary, the same in its TAP reporter (the default when output is not a
 * terminal) and its spec reporter:
 *
 *     # tests 5            ℹ tests 5
 *     # suites 1           ℹ suites 1
 *     # pass 2             ℹ pass 2
 *     # fail 1             ℹ fail 1
 *     # cancelled 0        ℹ cancelled 0
 *     # skipped 1          ℹ skipped 1
 *     # todo 1             ℹ todo 1
 *
 * `cancelled` is what tells it from tape's `# tests/# pass/# fail` (left to the TAP parser).
 * Cancelled tests did not pass: they count as failed. A test name pattern that matches nothing
 * gives `pass 0` with every test skipped.
 */
const LINE = /^(?:# |ℹ )(tests|suites|pass|fail|cancelled|skipped|todo) (\d+)[ \t]*$/gm;

export const nodeTestParser: RunnerParser = {
  runner: 'node:test',
  parse(text) {
    const blocks: Array<Record<string, number>> = [];
    for (const [, key, value] of text.matchAll(LINE)) {
      if (key === 'tests' || blocks.length === 0) blocks.push({});
      blocks.at(-1)![key!] = Number(value);
    }
    const summaries = blocks.filter((block) => block.tests !== undefined && block.pass !== undefined && block.cancelled !== undefined);
    if (summaries.length === 0) return undefined;
    const counts: RunnerCounts = { runner: 'node:test', passed: 0, failed: 0, skipped: 0, todo: 0 };
    for (const block of summaries) {
      counts.passed += block.pass ?? 0;
      counts.failed += (block.fail ?? 0) + (block.cancelled ?? 0);
      counts.skipped += block.skipped ?? 0;
      counts.todo += block.todo ?? 0;
    }
    return counts;
  },
};
