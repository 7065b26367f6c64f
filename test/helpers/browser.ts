import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`; .ci/run does it), never a downloaded browser. */
export const CHROMIUM = process.env.DASHCD_CHROMIUM ?? '/usr/bin/chromium';

const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface Browser {
  /** A new tab of that size, its console errors collected. */
  page(viewport: { width: number; height: number }): Promise<Page>;
  /** Console errors and uncaught page errors of every page opened so far. */
  errors: string[];
  close(): Promise<void>;
}

/**
 * Headless Chromium with a fresh profile. A missing browser is an error, not a skip: the console's tests must run
 * wherever `npm test` does.
 */
export async function launchChromium(): Promise<Browser> {
  await access(CHROMIUM).catch(() => {
    throw new Error(`no Chromium at ${CHROMIUM}: install it (apt-get install -y chromium, as .ci/run does) or set DASHCD_CHROMIUM`);
  });
  const profile = await mkdtemp(join(tmpdir(), 'dashcd-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS });
  const errors: string[] = [];
  return {
    errors,
    async page(viewport) {
      const page = await context.newPage();
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      page.on('pageerror', (error) => errors.push(String(error)));
      await page.setViewportSize(viewport);
      return page;
    },
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
