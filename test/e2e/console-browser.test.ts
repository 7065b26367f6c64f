import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launchChromium, type Browser } from '../helpers/browser.js';
import { consoleScenario, EXPECTED_COUNTS, EXPECTED_STATUS, type ConsoleScenario } from '../helpers/console-scenario.js';
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

/**
 * For each occurrence of `word` in the text under `selector`: on how many lines the browser laid it out (1: whole;
 * 2: split mid-word, as `uncommitte` / `d`). Measured with a Range over the word's characters.
 */
async function linesOfWord(page: Page, selector: string, word: string): Promise<number[]> {
  const script = `[...document.querySelectorAll(${JSON.stringify(selector)})].flatMap((element) => {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    const lines = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let at = node.data.indexOf(${JSON.stringify(word)}); at >= 0; at = node.data.indexOf(${JSON.stringify(word)}, at + 1)) {
        const range = document.createRange();
        range.setStart(node, at);
        range.setEnd(node, at + ${word.length});
        lines.push(new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size);
      }
    }
    return lines;
  })`;
  return (await page.evaluate(script)) as number[];
}

/** The status chips of an environment card, as `{ status: count }`. */
async function cardCounts(page: Page, env: string): Promise<Record<string, string>> {
  const chips = await page.locator(`section.card[data-env="${env}"] .counts .status`).evaluateAll((spans) => spans.map((s) => [s.getAttribute('data-status') ?? '', s.getAttribute('data-count') ?? '', s.textContent ?? '']));
  for (const [status, count, text] of chips) expect(text).toBe(`${count} ${status}`);
  return Object.fromEntries(chips.map(([status, count]) => [status, count]));
}

/** The visible tick labels of a timeline axis, with their boxes. */
async function ticks(page: Page, selector: string): Promise<{ text: string; box: Box }[]> {
  const out: { text: string; box: Box }[] = [];
  for (const tick of await page.locator(selector).all()) {
    if (!(await tick.isVisible())) continue;
    const found = await tick.boundingBox();
    if (found) out.push({ text: (await tick.textContent()) ?? '', box: found });
  }
  return out;
}

describe('the console in headless Chromium', () => {
  it('at 1280 px: lists the sample dashboards with their statuses in a table, the drifted one shows its diff, the events timeline has bars', async () => {
    const page = await browser.page({ width: 1280, height: 800 });
    await page.goto(`${scenario.d.url}/ui`);
    // The environment card counts its dashboards per sync state, and its revision says "uncommitted" on one line.
    expect(await cardCounts(page, 'local')).toEqual(EXPECTED_COUNTS);
    expect(await linesOfWord(page, 'section.card', 'uncommitted')).toEqual([1]);
    await page.getByRole('link', { name: 'local' }).first().click();
    await page.waitForURL(/\/ui\/e\/local$/);
    expect(await rowStatuses(page)).toEqual(EXPECTED_STATUS);
    // A table: a row's cells side by side on one line.
    const [name, status] = [await box(page, 'tr.dashboard td[data-label="Dashboard"]'), await box(page, 'tr.dashboard td[data-label="Status"]')];
    expect(status.x).toBeGreaterThan(name.x + name.width - 1);
    expect(Math.abs(status.y - name.y)).toBeLessThan(2);
    expect(await overflowsSideways(page)).toBe(false);
    // Each row's revision cell: the word is never broken across lines.
    const revisions = await linesOfWord(page, 'td[data-label="Revision"]', 'uncommitted');
    expect(revisions.length).toBe(Object.keys(EXPECTED_STATUS).length);
    expect(new Set(revisions)).toEqual(new Set([1]));

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
    await expectAxes(page, chart);
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
    await expectAxes(page, chart);

    await page.goto(`${scenario.d.url}/ui`);
    expect(await cardCounts(page, 'local')).toEqual(EXPECTED_COUNTS);
    expect(await linesOfWord(page, 'section.card', 'uncommitted')).toEqual([1]);
    await page.goto(`${scenario.d.url}/ui/e/local`);
    expect(new Set(await linesOfWord(page, 'td[data-label="Revision"]', 'uncommitted'))).toEqual(new Set([1]));
    expect(browser.errors).toEqual([]);
  });
});

/**
 * The first timeline's axes, read as a reader sees them: time labels (`HH:00`, or a date at midnight) under the
 * chart, inside its width, left to right without overlapping; count labels left of it, 0 at the bottom, the top
 * label at least the tallest bar's count.
 */
async function expectAxes(page: Page, chart: Box): Promise<void> {
  const times = await ticks(page, 'figure.timeline[data-group="type"] .x-axis .tick');
  expect(times.length).toBeGreaterThanOrEqual(3);
  for (const { text, box: label } of times) {
    expect(text).toMatch(/^(\d\d:00|\d{1,2} [A-Z][a-z]{2})$/);
    expect(label.y).toBeGreaterThanOrEqual(chart.y + chart.height - 1);
    expect(label.y).toBeLessThan(chart.y + chart.height + 30);
    expect(label.x + label.width / 2).toBeGreaterThanOrEqual(chart.x - 1);
    expect(label.x + label.width / 2).toBeLessThanOrEqual(chart.x + chart.width + 1);
    expect(label.height).toBeGreaterThanOrEqual(9);
  }
  for (let i = 1; i < times.length; i++) expect(times[i]!.box.x).toBeGreaterThan(times[i - 1]!.box.x + times[i - 1]!.box.width);
  const counts = await ticks(page, 'figure.timeline[data-group="type"] .y-axis .tick');
  expect(counts.map((c) => c.text)[0]).toBe('0');
  for (const { box: label } of counts) expect(label.x + label.width).toBeLessThanOrEqual(chart.x + 1);
  const values = counts.map((c) => Number(c.text));
  expect(values).toEqual([...values].sort((a, b) => a - b));
  // Higher counts higher up; the top label no lower than the tallest hour (bars of one hour stack).
  const ys = counts.map((c) => c.box.y);
  expect(ys).toEqual([...ys].sort((a, b) => b - a));
  const perHour = await page.locator('figure.timeline[data-group="type"] rect.bar').evaluateAll((rects) => {
    const sums = new Map<string, number>();
    for (const r of rects) sums.set(r.getAttribute('data-hour') ?? '', (sums.get(r.getAttribute('data-hour') ?? '') ?? 0) + Number(r.getAttribute('data-count')));
    return Math.max(...sums.values());
  });
  expect(values.at(-1)).toBeGreaterThanOrEqual(perHour);
}
