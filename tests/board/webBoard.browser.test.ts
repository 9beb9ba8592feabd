import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { makeRepo } from '../support/gitRepo.js';
import { OrcaTestEnv } from '../support/orcaEnv.js';
import { openBrowser } from './browser.js';
import { startOrca, startServe } from './orcaProcesses.js';

/** Whole scripted runs on a shared, possibly busy machine: a safety net, not a measure of speed. */
const WHOLE_RUN_MS = 240_000;

const FIXTURES = path.join(packageRoot(), 'tests', 'board', 'fixtures');
/** Set to a folder (docs/) to keep screenshots of the board for the README. */
const SCREENSHOTS = process.env.ORCA_BOARD_SCREENSHOTS;

async function screenshot(page: Page, name: string): Promise<void> {
  if (SCREENSHOTS) await page.screenshot({ path: path.join(path.resolve(packageRoot(), SCREENSHOTS), name) });
}

/** Waits for `selector` on the page; past the deadline (a safety net) fails with what the page and the run showed. */
async function shows(page: Page, selector: string, run: { output: string }): Promise<void> {
  try {
    await page.locator(selector).first().waitFor({ timeout: 60_000 });
  } catch (error) {
    const body = page.locator('body');
    // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered is what a reader of the failure needs.
    const text = body.innerText();
    const seen = await text.catch((failure: Error) => `(the page could not be read: ${failure.message})`);
    throw new Error(`${selector} never showed.\n--- the page:\n${seen}\n--- orca run:\n${run.output.slice(-3_000)}`, { cause: error });
  }
}

/** A page that counts its own loads (a reload would start the count again) and fails the test on a script error. */
async function openRun(page: Page, url: string, runId: string): Promise<() => Promise<number>> {
  let loads = 0;
  const errors: string[] = [];
  page.on('load', () => (loads += 1));
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${url}#run=${runId}`);
  await page.evaluate(() => ((globalThis as unknown as { boardMarker: string }).boardMarker = 'still the first load'));
  return async () => {
    const marker = await page.evaluate(() => (globalThis as unknown as { boardMarker?: string }).boardMarker);
    expect(errors).toEqual([]);
    return marker === 'still the first load' ? loads : -1;
  };
}

describe('the web board in a real browser, during scripted orca runs', () => {
  it(
    'shows a task move from running to merged without a reload, with its dependency drawn',
    async () => {
      const env = await OrcaTestEnv.open();
      const repo = makeRepo({ 'README.md': '# two files\n' });
      const { url } = await startServe(env);
      const run = startOrca(env, [
        'run',
        'write a.txt, then b.txt',
        '--repo',
        repo,
        '--script',
        path.join(FIXTURES, 'two-tasks.json'),
        '--workers',
        '1',
        // Checked after each merge (t1's alone, then both): what t1 made must hold at every point.
        '--check',
        'test -f a.txt',
      ]);
      const [, runId] = await run.printed(/^orca: run (\S+)$/m);

      const browser = await openBrowser();
      const page = await browser.newPage();
      const loadsSoFar = await openRun(page, url, runId!);

      await shows(page, '[data-column="running"] [data-task="t1"]', run);
      await expect(page.locator('[data-column="pending"] [data-task="t2"]').textContent()).resolves.toContain('waits for t1');
      await expect(page.locator('[data-edge="t1->t2"]').count()).resolves.toBe(1);
      await screenshot(page, 'board-running.png');

      // Its column also holds tasks that completed and wait for their merge: the status says which.
      await shows(page, '[data-column="verified"] [data-task="t1"][data-status="verified"]', run);
      const merged = page.locator('[data-column="verified"] [data-task="t1"][data-status="verified"]');
      await expect(merged.locator('.activity').textContent()).resolves.toMatch(/^merge: merged at [0-9a-f]{12}$/);

      await shows(page, '#run-state[data-state="PASS"]', run);
      await expect(run.exited).resolves.toBe(0);
      await expect(page.locator('[data-column="verified"] [data-task="t2"]').count()).resolves.toBe(1);
      expect(await loadsSoFar()).toBe(1);

      // A task's detail: its transcript, and its diff from the real branch.
      await merged.click();
      await page.locator('.transcript .line').first().waitFor();
      await expect(page.locator('.transcript').textContent()).resolves.toContain('Write {"file_path":"a.txt"');
      await screenshot(page, 'board-transcript.png');
      await page.click('[data-tab="diff"]');
      await expect(page.locator('.diff').textContent()).resolves.toContain('+t1');
      await screenshot(page, 'board-diff.png');
    },
    WHOLE_RUN_MS,
  );

  it(
    'aborts a run with the button, after the confirmation',
    async () => {
      const env = await OrcaTestEnv.open();
      const repo = makeRepo({ 'README.md': '# stalls\n' });
      const { url } = await startServe(env);
      const run = startOrca(env, [
        'run',
        'a run that stalls',
        '--repo',
        repo,
        '--script',
        path.join(FIXTURES, 'stalls-in-t1.json'),
        '--workers',
        '1',
      ]);
      const [, runId] = await run.printed(/^orca: run (\S+)$/m);

      const browser = await openBrowser();
      const page = await browser.newPage();
      const loadsSoFar = await openRun(page, url, runId!);
      await shows(page, '[data-column="running"] [data-task="t1"]', run);

      // Declining the confirmation sends nothing (the dialog was shown: the click landed, whatever redraw came between press and release).
      const declined = new Promise<void>((resolve) => page.once('dialog', (dialog) => void dialog.dismiss().then(() => resolve())));
      await page.click('#abort');
      await declined;
      await expect(page.locator('#abort').isEnabled()).resolves.toBe(true);
      expect(run.running).toBe(true);

      const confirmed = new Promise<string>((resolve) =>
        page.once('dialog', (dialog) => void dialog.accept().then(() => resolve(dialog.message()))),
      );
      await page.click('#abort');
      await expect(confirmed).resolves.toBe(`Abort run ${runId}? Its agents stop and their shells are killed; worktrees are kept.`);

      await shows(page, '#run-state[data-state="ABORTED"]', run);
      await expect(run.exited).resolves.toBe(130);
      await shows(page, '[data-column="failed"] [data-task="t1"][data-status="aborted"]', run);
      await shows(page, '[data-column="failed"] [data-task="t2"][data-status="blocked"]', run);
      await expect(page.locator('#abort').isDisabled()).resolves.toBe(true);
      await shows(page, `#runs a[data-run="${runId}"] .badge[data-state="ABORTED"]`, run);
      expect(await loadsSoFar()).toBe(1);
      await screenshot(page, 'board-aborted.png');
    },
    WHOLE_RUN_MS,
  );
});
