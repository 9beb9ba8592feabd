import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { CHECK_COMMAND, runScript, writerTurns } from '../../bench/runScript.js';
import { packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { readRunBoard } from '../../shared/infra/board/readBoard.js';
import { agentJobId } from '../../shared/infra/queue/agentQueue.js';
import {
  agentEnv,
  askRepo,
  checkThenReport,
  PATH_WITH_BIN,
  pendingAsk,
  publishedCommands,
  publishingRepo,
  streamEntries,
} from '../asks/asksKit.js';
import { git } from '../support/gitRepo.js';
import { OrcaTestEnv } from '../support/orcaEnv.js';
import { reportTurn, scriptedJob, testRunId, toolOutcomes, toolTurn } from '../support/scriptedJobs.js';
import { openBrowser } from './browser.js';
import { startOrca, startServe } from './orcaProcesses.js';

/** Whole scripted runs on a shared, possibly busy machine: a safety net, not a measure of speed. */
const WHOLE_RUN_MS = 240_000;
/** Set to a folder (docs/) to keep screenshots of the board for the README. */
const SCREENSHOTS = process.env.ORCA_BOARD_SCREENSHOTS;

async function screenshot(page: Page, name: string): Promise<void> {
  if (SCREENSHOTS) await page.screenshot({ path: path.join(path.resolve(packageRoot(), SCREENSHOTS), name) });
}

/** Waits for `selector`; past the deadline (a safety net) fails with what the page showed. */
async function shows(page: Page, selector: string, context: () => string = () => ''): Promise<void> {
  try {
    await page.locator(selector).first().waitFor({ timeout: 90_000 });
  } catch (error) {
    const body = page.locator('body');
    // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered is what a reader of the failure needs.
    const text = body.innerText();
    const seen = await text.catch((failure: Error) => `(the page could not be read: ${failure.message})`);
    throw new Error(`${selector} never showed.\n--- the page:\n${seen}\n--- more:\n${context().slice(-3_000)}`, { cause: error });
  }
}

/** A page on the run that fails the test on a script error, and counts its loads (a reload starts the count again). */
async function openRun(page: Page, url: string, runId: string): Promise<() => Promise<number>> {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${url}#run=${runId}`);
  await page.evaluate(() => ((globalThis as unknown as { boardMarker: string }).boardMarker = 'still the first load'));
  return async () => {
    const marker = await page.evaluate(() => (globalThis as unknown as { boardMarker?: string }).boardMarker);
    expect(errors).toEqual([]);
    return marker === 'still the first load' ? 1 : -1;
  };
}

describe('permission requests and the timeline on the web board, in a real browser', () => {
  it(
    'a pending request appears on its task without a reload; Deny sends the answer with its reason, and the card clears',
    async () => {
      const orca = await OrcaTestEnv.open();
      const setup = askRepo(orca);
      await orca.startWorker();
      const { url } = await startServe(orca);
      const runId = testRunId('board-ask');
      const browser = await openBrowser();
      const page = await browser.newPage();
      // The page is open on the run before the run has a single event.
      const loads = await openRun(page, url, runId);

      await orca.queue.add({
        ...scriptedJob({
          runId,
          taskId: 'publish',
          repo: { path: setup.repo },
          base: setup.base,
          role: { sandbox: false },
          env: agentEnv(setup),
          turns: [toolTurn('Bash', { command: 'npm publish --tag next' }), reportTurn('tried to publish')],
        }),
        asks: { timeout_ms: 600_000, yes_to: [] },
      });
      const ask = await pendingAsk(orca, runId);
      const card = page.locator(`[data-ask="${ask.id}"]`);
      await shows(page, `[data-ask="${ask.id}"]`);
      await expect(card.locator('.ask-summary').textContent()).resolves.toBe('npm publish --tag next');
      await expect(card.locator('.ask-reason').textContent()).resolves.toContain(
        'the rule Bash(npm publish:*) in .claude/settings.json asks',
      );
      await expect(page.locator('[data-task="publish"]').getAttribute('data-asking')).resolves.toBe('true');
      await expect(page.locator('[data-bar="publish"]').getAttribute('data-asking')).resolves.toBe('true');
      await expect(page.locator('.asks-waiting').textContent()).resolves.toBe('1 permission request(s) wait for an answer');
      await screenshot(page, 'board-ask.png');

      // The reason typed survives the page's redraws (the board is sent again as the run's events come).
      await card.locator('.ask-why').fill('not from the board today');
      await card.locator('[data-answer="deny"]').click();
      await page.locator(`[data-ask="${ask.id}"]`).waitFor({ state: 'detached', timeout: 90_000 });
      await expect(page.locator('[data-task="publish"]').getAttribute('data-asking')).resolves.toBeNull();

      const result = await orca.result(agentJobId(runId, 'publish', 1));
      expect(result.status).toBe('completed');
      expect(publishedCommands(setup)).toEqual([]);
      const [publish] = await toolOutcomes(orca.redis, orca.keys, runId, 'publish');
      expect(publish!.preview).toBe(
        'Permission to use Bash was denied: denied on the web board by web board (127.0.0.1): not from the board today',
      );
      const answers = (await streamEntries(orca, runId)).filter((entry) => entry.event.type === 'permission_answer');
      expect(answers.map((entry) => entry.event)).toEqual([
        expect.objectContaining({ allowed: false, via: 'board', by: 'web board (127.0.0.1)' }),
      ]);
      expect(await loads()).toBe(1);
    },
    WHOLE_RUN_MS,
  );

  it(
    'the timeline of a three-task run: a bar per agent in its worker slot’s lane, in order, merges and checks marked, waits shown',
    async () => {
      const orca = await OrcaTestEnv.open();
      const repo = publishingRepo(orca);
      const script = path.join(orca.dir('script'), 'script.json');
      writeFileSync(
        script,
        JSON.stringify(
          runScript([
            { id: 'cart', paths: ['cart.txt'], turns: writerTurns('cart.txt', 4, 400) },
            {
              id: 'publish',
              paths: ['published.txt'],
              turns: [toolTurn('Bash', { command: 'npm publish --tag next' }), ...checkThenReport('published')],
            },
            { id: 'report', paths: ['report.txt'], depends_on: ['cart', 'publish'], turns: writerTurns('report.txt', 3, 400) },
          ]),
        ),
      );
      const { url } = await startServe(orca);
      const run = startOrca(
        orca,
        [
          'run',
          'cart, publish, then report',
          '--repo',
          repo,
          '--script',
          script,
          // No terminal here: the board answers, so the run waits for it.
          '--ask-timeout',
          '10m',
          '--workers',
          '2',
          '--concurrency',
          '1',
          '--check',
          CHECK_COMMAND,
        ],
        { PATH: PATH_WITH_BIN },
      );
      const [, runId] = await run.printed(/^orca: run (\S+)$/m);
      const browser = await openBrowser();
      const page = await browser.newPage();
      const loads = await openRun(page, url, runId!);

      // While publish waits for its answer, its bar is highlighted; cart goes on in the other worker.
      const ask = await pendingAsk(orca, runId!, 'publish');
      await shows(page, '[data-bar="publish"][data-asking="true"] .wait.pending', () => run.output);
      await shows(page, `[data-ask="${ask.id}"]`, () => run.output);
      await page.locator(`[data-ask="${ask.id}"] [data-answer="allow"]`).click();
      await page.locator(`[data-ask="${ask.id}"]`).waitFor({ state: 'detached', timeout: 90_000 });

      expect(await run.exited, run.output).toBe(0);
      await shows(page, '#run-state[data-state="PASS"]', () => run.output);
      expect(git(repo, 'show', `orca/${runId}/integration:published.txt`)).toBe('npm publish --tag next');

      // One bar per agent (orca's own jobs too), each in the lane of the worker slot that ran it.
      const board = (await readRunBoard(orca.redis, orca.keys, runId!))!;
      const agents = board.tasks.filter((task) => task.started_at !== undefined);
      expect(agents.map((task) => task.task_id).sort()).toEqual(['_coordinator', '_plan', '_verify-1', 'cart', 'publish', 'report']);
      await shows(page, '[data-bar="_verify-1"][data-status="completed"]', () => run.output);
      const bars = await page.locator('.timeline [data-bar]').evaluateAll((nodes) =>
        nodes.map((node) => {
          const box = node.getBoundingClientRect();
          return {
            task: node.getAttribute('data-bar')!,
            lane: node.getAttribute('data-lane')!,
            laneRow: node.closest('.lane')!.getAttribute('data-lane'),
            left: box.left,
            right: box.right,
            top: box.top,
          };
        }),
      );
      expect(bars.map((bar) => bar.task).sort()).toEqual(agents.map((task) => task.task_id).sort());
      const lanes = new Set<string>();
      for (const task of agents) {
        const bar = bars.find((candidate) => candidate.task === task.task_id)!;
        const lane = `${task.host}|${task.pid}|${task.slot}`;
        expect(bar.lane, task.task_id).toBe(lane);
        expect(bar.laneRow, task.task_id).toBe(lane);
        expect(task.host).toBe(os.hostname());
        lanes.add(lane);
      }
      // Two worker processes of one agent slot each: two lanes, and cart and publish ran side by side in them.
      expect(lanes.size).toBe(2);
      const at = (task: string) => bars.find((bar) => bar.task === task)!;
      expect(at('cart').lane).not.toBe(at('publish').lane);
      expect(at('_coordinator').right).toBeLessThanOrEqual(at('_plan').left + 1);
      expect(at('_plan').right).toBeLessThanOrEqual(Math.min(at('cart').left, at('publish').left) + 1);
      expect(Math.max(at('cart').right, at('publish').right)).toBeLessThanOrEqual(at('report').left + 1);
      expect(at('report').right).toBeLessThanOrEqual(at('_verify-1').left + 1);
      // publish waited for its answer: the wait is on its bar.
      await expect(page.locator(`[data-bar="publish"] [data-wait="${ask.id}"]`).count()).resolves.toBe(1);
      // The coordinator's lane: a merge per task, and the integration checks.
      const merges = await page
        .locator('[data-lane="coordinator"] [data-marker="merge"]')
        .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-task')));
      expect(merges.sort()).toEqual(['cart', 'publish', 'report']);
      // The integration check after each merge, and once more in the final verification.
      await expect(page.locator('[data-lane="coordinator"] [data-marker="check"][data-ok="true"]').count()).resolves.toBe(
        merges.length + 1,
      );

      // Hovering a bar shows its task, tokens and cost (a subtask in the bottom lane, so its tip covers no other lane).
      const bottom = bars.reduce((last, bar) => (bar.top > last.top ? bar : last)).laneRow;
      const hovered = agents.find((task) => !task.task_id.startsWith('_') && `${task.host}|${task.pid}|${task.slot}` === bottom)!;
      // A taller window, so the tip has room below the bar for the screenshot.
      await page.setViewportSize({ width: 1440, height: 1400 });
      await page.locator(`[data-bar="${hovered.task_id}"]`).hover();
      await shows(page, '#timeline-tip:not([hidden])');
      const tip = (await page.locator('#timeline-tip').textContent()) ?? '';
      expect(tip).toContain(`${hovered.task_id} · worker · verified`);
      expect(tip).toContain(`subtask ${hovered.task_id}`);
      expect(tip).toMatch(/\d+(\.\d)?k? in \/ \d+ out tokens · \$0\.0000/);
      expect(tip).toContain(`on ${hovered.host} pid ${hovered.pid} slot ${(hovered.slot ?? 0) + 1}`);
      if (SCREENSHOTS) {
        // The timeline with its tip.
        const box = (await page.locator('#timeline').boundingBox())!;
        const tipBox = (await page.locator('#timeline-tip').boundingBox())!;
        const top = Math.min(box.y, tipBox.y) - 8;
        const bottom = Math.max(box.y + box.height, tipBox.y + tipBox.height) + 8;
        const file = path.join(path.resolve(packageRoot(), SCREENSHOTS), 'board-timeline.png');
        await page.screenshot({ path: file, clip: { x: box.x - 8, y: top, width: box.width + 16, height: bottom - top } });
      }
      expect(await loads()).toBe(1);
    },
    WHOLE_RUN_MS,
  );
});
