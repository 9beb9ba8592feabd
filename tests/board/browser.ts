import { type BrowserContext, chromium } from 'playwright-core';
import { afterEach } from 'vitest';
import { tempDir } from '../support/tempDir.js';

const contexts: BrowserContext[] = [];

/**
 * Debian's chromium, headless, driven by playwright-core: a fresh profile folder per test, and
 * nothing that reaches out on its own (updates, sync, QUIC, background networking).
 */
export async function openBrowser(): Promise<BrowserContext> {
  const context = await chromium.launchPersistentContext(tempDir('orca-chromium-'), {
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1440, height: 900 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  contexts.push(context);
  return context;
}

afterEach(async () => {
  for (const context of contexts.splice(0)) await context.close();
});
