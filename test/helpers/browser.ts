import { access, constants, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { chromium, type Page } from 'playwright-core';

const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** The names a system Chromium or Chrome goes by on Linux and macOS, looked up on PATH. */
const SYSTEM_BROWSERS = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];
const MAC_BROWSERS = ['/Applications/Chromium.app/Contents/MacOS/Chromium', '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome'];

export type BrowserChoice = { source: 'DASHCD_CHROMIUM' | 'system' | 'packaged'; path: string };

/**
 * Which browser the console's tests drive: `DASHCD_CHROMIUM` when set, else a system Chromium/Chrome, else the
 * headless Chromium inside the `@sparticuz/chromium` dev dependency (unpacked once into the temp dir), so that
 * `npm install && npm test` needs nothing but Node. Never a browser downloaded at test time.
 */
export async function chooseBrowser(env: NodeJS.ProcessEnv = process.env): Promise<BrowserChoice> {
  const chosen = env.DASHCD_CHROMIUM;
  if (chosen !== undefined && chosen !== '') {
    if (!(await isExecutable(chosen))) throw new Error(`DASHCD_CHROMIUM=${chosen} is not an executable file`);
    return { source: 'DASHCD_CHROMIUM', path: chosen };
  }
  const onPath = (env.PATH ?? '').split(delimiter).filter((dir) => dir !== '');
  for (const candidate of [...SYSTEM_BROWSERS.flatMap((name) => onPath.map((dir) => join(dir, name))), ...MAC_BROWSERS]) {
    if (await isExecutable(candidate)) return { source: 'system', path: candidate };
  }
  return { source: 'packaged', path: await packagedChromium() };
}

async function packagedChromium(): Promise<string> {
  try {
    const { default: Chromium } = await import('@sparticuz/chromium');
    return await Chromium.executablePath();
  } catch (error) {
    throw new Error(
      `no browser for the console's tests: DASHCD_CHROMIUM is unset, no chromium/google-chrome on PATH, and the packaged Chromium (@sparticuz/chromium, a dev dependency: run npm install) could not be unpacked: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

async function isExecutable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

export interface Browser {
  /** A new tab of that size, its console errors collected. */
  page(viewport: { width: number; height: number }): Promise<Page>;
  /** Console errors and uncaught page errors of every page opened so far. */
  errors: string[];
  close(): Promise<void>;
}

/**
 * Headless Chromium with a fresh profile. A browser that cannot start is an error naming which one and why, never a
 * skip: the console's tests must run wherever `npm test` does.
 */
export async function launchChromium(): Promise<Browser> {
  const choice = await chooseBrowser();
  const profile = await mkdtemp(join(tmpdir(), 'dashcd-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: choice.path, headless: true, args: FLAGS }).catch(async (error: unknown) => {
    await rm(profile, { recursive: true, force: true });
    throw new Error(`the ${choice.source} browser at ${choice.path} did not start: ${error instanceof Error ? error.message : String(error)}`);
  });
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
