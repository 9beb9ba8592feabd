import type { BenchSection, Figure } from '../section.js';
import { phaseNote } from '../sessionPhases.js';
import { SINGLE_AGENT_TARGET, singleAgentBenchmark } from '../singleAgent.js';

/** `orca agent` beside `claude -p` on the same task and stand-in. */
export const singleSection: BenchSection = {
  name: 'single',
  async run({ quick, timed }) {
    const figures: Figure[] = [];
    const details: Record<string, unknown> = {};
    const result = await timed('one agent beside Claude Code', () => singleAgentBenchmark({ runs: quick ? 2 : 10 }));
    details.single = result;
    figures.push({
      key: 'single_agent_vs_claude_code',
      value: result.ratio,
      reference: { what: `claude -p ${result.claude_code_version}, ms (median)`, value: result.claude_code_ms },
      target: `≤ ${SINGLE_AGENT_TARGET}`,
      met: result.ratio <= SINGLE_AGENT_TARGET,
      note: `orca agent ${result.orca_ms} ms (median of ${result.runs}, a worker already running; its queue, worktree and commit included); Read, Edit, Bash, answer against the same local Messages stand-in; ${phaseNote(result.orca_phases)}`,
    });

    return { figures, details };
  },
};
