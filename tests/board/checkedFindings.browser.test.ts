import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSampleRepo } from '../../coordinator/demo/sampleRepo.js';
import { packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { OrcaTestEnv } from '../support/orcaEnv.js';
import { openBrowser } from './browser.js';
import { startOrca, startServe } from './orcaProcesses.js';

/** A whole scripted run on a shared, possibly busy machine: a safety net, not a measure of speed. */
const WHOLE_RUN_MS = 240_000;
const SCRIPT = path.join(packageRoot(), 'tests', 'fixtures', 'scripts', 'unproven-work.json');

describe('the web board shows what the host checked', () => {
  it(
    'lists the explore findings, verified or not with the reason, and why each task failed',
    async () => {
      const env = await OrcaTestEnv.open();
      const repo = createSampleRepo(path.join(env.dir('repo'), 'shop-lib')).dir;
      const { url } = await startServe(env);
      const run = startOrca(env, ['run', 'reword the money helpers', '--repo', repo, '--script', SCRIPT, '--workers', '2']);
      const [, runId] = await run.printed(/^orca: run (\S+)$/m);
      await expect(run.exited).resolves.toBe(1);

      const browser = await openBrowser();
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${url}#run=${runId}`);
      await page.locator('#run-state[data-state="FAIL"]').waitFor({ timeout: 60_000 });

      const findings = page.locator('#findings');
      await expect(findings.locator('h3').textContent()).resolves.toBe('Explore findings: 1 verified at the base, 3 unverified');
      await expect(findings.locator('li[data-verified="true"]').count()).resolves.toBe(1);
      await expect(findings.locator('li[data-verified="false"]').count()).resolves.toBe(3);
      const unverified = await findings.locator('li[data-verified="false"] .reason').allTextContents();
      expect(unverified[0]).toMatch(/^src\/missing\.ts does not exist at the base commit/);
      expect(unverified[1]).toMatch(/line 400 is past its end$/);
      expect(unverified[2]).toMatch(/^`applyDiscount` does not occur in src\/cart\.ts/);

      await page.click('[data-task="lazy"]');
      const facts = page.locator('.detail-facts');
      await facts.waitFor();
      await expect(facts.textContent()).resolves.toContain(
        'why: its last Report was refused by the gates (required: worker lazy: required check `npm test` never ran',
      );
      // What its commands ran in on the worker (bwrap is installed where the tests run).
      await expect(facts.textContent()).resolves.toContain('sandbox bwrap');
      expect(errors).toEqual([]);
    },
    WHOLE_RUN_MS,
  );
});
