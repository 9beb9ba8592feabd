import type { BenchSection, Figure } from '../section.js';
import { phaseNote } from '../sessionPhases.js';
import { SINGLE_AGENT_ACP_TARGET, singleAgentBenchmark } from '../singleAgent.js';

/** `orca agent --agent claude-code` beside `claude -p`, with the bundled and the native Claude Code. */
export const singleAcpSection: BenchSection = {
  name: 'single-acp',
  async run({ quick, timed }) {
    const figures: Figure[] = [];
    const details: Record<string, unknown> = {};
    const runs = quick ? 2 : 10;
    const result = await timed('Claude Code through orca beside Claude Code', () => singleAgentBenchmark({ runs, agent: 'claude-code' }));
    const pinned = await timed('the same, the adapter running the pinned Claude Code', () =>
      singleAgentBenchmark({ runs, agent: 'claude-code', samePinnedClaudeCode: true }),
    );
    details.single_acp = result;
    details.single_acp_pinned = pinned;
    figures.push({
      key: 'single_agent_claude_code_acp_vs_claude_code',
      value: result.ratio,
      reference: { what: `claude -p ${result.claude_code_version}, ms (median)`, value: result.claude_code_ms },
      target: `≤ ${SINGLE_AGENT_ACP_TARGET}`,
      met: result.ratio <= SINGLE_AGENT_ACP_TARGET,
      note: `orca agent --agent claude-code ${result.orca_ms} ms (median of ${result.runs}, a worker already running; the adapter with its Agent SDK's own Claude Code, in bwrap; orca's Read, Edit, Bash and Report over MCP; its worktree and commit included); the same task and stand-in; ${phaseNote(result.orca_phases)}`,
    });
    figures.push({
      key: 'single_agent_claude_code_acp_pinned_vs_claude_code',
      value: pinned.ratio,
      reference: { what: `claude -p ${pinned.claude_code_version}, ms (median)`, value: pinned.claude_code_ms },
      target: `≤ ${SINGLE_AGENT_ACP_TARGET}`,
      met: pinned.ratio <= SINGLE_AGENT_ACP_TARGET,
      note: `as above, the adapter running the same pinned Claude Code as claude -p (on the worker's PATH, which the preset prefers): ${pinned.orca_ms} ms; the difference from claude -p is orca's and the adapter's; ${phaseNote(pinned.orca_phases)}`,
    });

    return { figures, details };
  },
};
