import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launchChromium, type Browser } from '../helpers/browser.js';
import { consoleScenario, EXPECTED_STATUS, type ConsoleScenario } from '../helpers/console-scenario.js';
import { daemonScopePerFile } from '../helpers/daemon-scope.js';

const scope = daemonScopePerFile();
let browser: Browser;
let scenario: ConsoleScenario;

beforeAll(async () => {
  browser = await launchChromium();
  scenario = await consoleScenario(scope);
}, 180_000);

afterAll(async () => {
  await browser?.close();
});

type Box = { x: number; y: number; width: number; height: number };

async function box(page: Page, selector: string): Promise<Box> {
  const found = await page.locator(selector).first().boundingBox();
  if (!found) throw new Error(`${selector} is not displayed`);
  return found;
}

async function rowStatuses(page: Page): Promise<Record<string, string>> {
  const rows = await page.locator('tr.dashboard').evaluateAll((trs) => trs.map((tr) => [tr.querySelector('a')?.textContent ?? '', tr.getAttribute('data-status') ?? '']));
  return Object.fromEntries(rows);
}

/** Nothing wider than the window: no sideways scrolling. */
async function overflowsSideways(page: Page): Promise<boolean> {
  return (await page.evaluate('document.documentElement.scrollWidth > document.documentElement.clientWidth')) === true;
}

describe('the console in headless Chromium', () => {
  it('at 1280 px: lists the sample dashboards with their statuses in a table, the drifted one shows its diff, the events timeline has bars', async () => {
    const page = await browser.page({ width: 1280, height: 800 });
    await page.goto(`${scenario.d.url}/ui`);
    await page.getByRole('link', { name: 'local' }).first().click();
    await page.waitForURL(/\/ui\/e\/local$/);
    expect(await rowStatuses(page)).toEqual(EXPECTED_STATUS);
    // A table: a row's cells side by side on one line.
    const [name, status] = [await box(page, 'tr.dashboard td[data-label="Dashboard"]'), await box(page, 'tr.dashboard td[data-label="Status"]')];
    expect(status.x).toBeGreaterThan(name.x + name.width - 1);
    expect(Math.abs(status.y - name.y)).toBeLessThan(2);
    expect(await overflowsSideways(page)).toBe(false);

    await page.getByRole('link', { name: 'DB v1' }).click();
    await page.locator('.picture.drift svg').waitFor();
    expect(await page.locator('pre.diff').innerText()).toContain('~ dashboardMetadata.name: "Edited by hand" → "DB v1"');
    const picture = await box(page, '.picture.drift svg');
    expect(picture.width).toBeGreaterThan(300);
    expect(picture.x + picture.width).toBeLessThanOrEqual(1280);

    await page.getByRole('link', { name: 'Events' }).click();
    await page.locator('figure.timeline').first().waitFor();
    const bars = page.locator('figure.timeline[data-group="type"] rect.bar');
    expect(await bars.count()).toBeGreaterThan(0);
    const chart = await box(page, 'figure.timeline[data-group="type"] svg');
    const bar = await box(page, 'figure.timeline[data-group="type"] rect.bar');
    expect(bar.height).toBeGreaterThan(0);
    expect(bar.y + bar.height).toBeLessThanOrEqual(chart.y + chart.height + 1);
    expect(await page.locator('figure.timeline[data-group="status"] rect.bar').count()).toBeGreaterThan(0);
    expect(await page.locator('tr.event').count()).toBeGreaterThan(0);
    expect(browser.errors).toEqual([]);
  });

  it('at a phone width (390 px): dashboards as stacked cards, pictures and timelines within the screen, no sideways scroll', async () => {
    const page = await browser.page({ width: 390, height: 844 });
    await page.goto(`${scenario.d.url}/ui/e/local`);
    expect(await rowStatuses(page)).toEqual(EXPECTED_STATUS);
    // Cards: a row's cells one under the other, each as wide as the card.
    const [name, status] = [await box(page, 'tr.dashboard td[data-label="Dashboard"]'), await box(page, 'tr.dashboard td[data-label="Status"]')];
    expect(status.y).toBeGreaterThanOrEqual(name.y + name.height - 1);
    expect(Math.abs(status.x - name.x)).toBeLessThan(2);
    expect(await page.locator('table.dashboards thead').isVisible()).toBe(false);
    expect(await overflowsSideways(page)).toBe(false);

    await page.getByRole('link', { name: 'DB v1' }).click();
    const picture = await box(page, '.picture.drift svg');
    expect(picture.x).toBeGreaterThanOrEqual(0);
    expect(picture.x + picture.width).toBeLessThanOrEqual(390);
    expect(await overflowsSideways(page)).toBe(false);

    await page.goto(`${scenario.d.url}/ui/e/local/events`);
    const chart = await box(page, 'figure.timeline svg');
    expect(chart.x + chart.width).toBeLessThanOrEqual(390);
    expect(await overflowsSideways(page)).toBe(false);
    expect(browser.errors).toEqual([]);
  });
});
