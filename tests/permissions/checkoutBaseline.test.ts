import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../shared/core/events/agentEvent.js';
import { modeOnlySlots } from '../../shared/core/tool/pipeline.js';
import { CheckoutBaseline, type CheckoutState, checkoutState } from '../../shared/policy/permissions/checkoutState.js';
import { OwnedPaths } from '../../shared/policy/permissions/ownedPaths.js';
import { ownedPathsGuard } from '../../shared/policy/permissions/ownedPathsSlots.js';
import { WorktreeWatch } from '../../shared/policy/permissions/worktreeWatch.js';
import { startAgentMcp } from '../../shared/tools/mcp/agentMcp.js';
import { bash, REPORT_TURN, runScripted } from '../context/scriptedSession.js';
import { EVERYTHING_SERVER } from '../mcp/mcpSupport.js';
import { git, makeRepo } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';

/** A baseline the test lets go: its look at the checkout is taken only when `release` is called. */
class HeldBaseline extends CheckoutBaseline {
  private look: Promise<CheckoutState> | undefined;
  private let: (() => void) | undefined;
  private readonly released = new Promise<void>((resolve) => {
    this.let = resolve;
  });

  override taken(): Promise<CheckoutState> {
    this.look ??= this.released.then(() => checkoutState(this.checkout));
    return this.look;
  }

  release(): void {
    this.let?.();
  }
}

describe("the baseline of the user's checkout", () => {
  it('is not on the way to the agent: the watch opens without it, and the first call waits until it is taken', async () => {
    const repo = makeRepo({ 'README.md': '# r\n' });
    const start = git(repo, 'rev-parse', 'HEAD');
    const dir = path.join(tempDir('orca-checkout-baseline-'), 'wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'orca/r1/t1', dir, start);
    const baseline = new HeldBaseline(repo);
    const owned = new OwnedPaths(undefined);
    const watch = await WorktreeWatch.open({
      root: dir,
      start,
      owned,
      linked: [],
      checkout: repo,
      checkoutBaseline: baseline,
      checkoutBaselineWait: 'ready',
    });
    const guard = ownedPathsGuard(owned, watch, start);
    const events: AgentEvent[] = [];
    // The Bash call writes into the checkout. Had it run before the baseline (let go 300 ms after
    // the call was asked for), the baseline would hold the file and nothing would be named.
    const session = runScripted({
      root: dir,
      turns: [bash(`echo late > ${path.join(repo, 'LATE.txt')}`), REPORT_TURN],
      slots: guard.wrap(modeOnlySlots),
      stopCheck: guard.stopCheck,
      onEvent: (event) => {
        events.push(event);
        if (event.type === 'tool_call' && event.name === 'Bash') setTimeout(() => baseline.release(), 300);
      },
    });
    await session;
    const notices = events.flatMap((event) => (event.type === 'notice' ? [event.message] : []));
    expect(notices.find((notice) => notice.startsWith('changes refused after Bash'))).toContain(
      "LATE.txt: LATE.txt in the repository's own checkout",
    );
  });

  it('is taken before an MCP server of the session starts: a server runs beside the calls from its start', async () => {
    const home = tempDir('orca-checkout-baseline-home-');
    const marker = path.join(home, 'server-started');
    writeFileSync(
      path.join(home, '.claude.json'),
      JSON.stringify({
        mcpServers: {
          marked: { command: 'sh', args: ['-c', `touch ${marker}; exec "${process.execPath}" ${EVERYTHING_SERVER} stdio`] },
        },
      }),
    );
    const seenBefore: boolean[] = [];
    const servers = await startAgentMcp({
      wanted: ['marked'],
      roleSource: 'builtin',
      projectRoot: tempDir('orca-checkout-baseline-project-'),
      homeDir: home,
      env: { ...process.env, ORCA_USER_CLAUDE_DIR: '', CLAUDE_CONFIG_DIR: '' },
      beforeServersStart: async () => {
        seenBefore.push(existsSync(marker));
        await sleep(300);
        seenBefore.push(existsSync(marker));
      },
    });
    try {
      expect(servers.running.map((server) => server.name)).toEqual(['marked']);
      expect(seenBefore).toEqual([false, false]);
      expect(existsSync(marker)).toBe(true);
    } finally {
      await servers.close();
    }
  });
});
