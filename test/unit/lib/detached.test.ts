import { describe, expect, it } from 'vitest';
import { detached, detachedText } from '../../../src/lib/detached.js';
import { COPIES_ONLY_BYTES, heapHeldBy, WHOLE_TEXTS_BYTES } from '../../helpers/held-heap.js';
import { DaemonStatus, type ShownDashboard } from '../../../src/daemon/daemon-status.js';
import { packLayout } from '../../../src/daemon/packed-layout.js';

/** Heap bytes still held by one short name cut from each text, kept as `keep` keeps it. */
function heldByNames(keep: (name: string) => unknown): { held: number; kept: unknown[] } {
  return heapHeldBy((i) => `name: dashboard number ${i} of the folder\n`, (text) => keep(text.slice(6, 40)));
}

describe('detached', () => {
  it('is the same text', () => {
    const text = 'name: Service overview — ünïcödé ✓ and more\n';
    expect(detached(text.slice(6, 44))).toBe(text.slice(6, 44));
    expect(detached('')).toBe('');
  });

  it('keeps no part of the longer text it was cut from alive, where the cut itself keeps all of it', () => {
    const cut = heldByNames((name) => name);
    const copied = heldByNames(detached);
    // The premise: a kept cut holds its whole text (100 × 200,000 one-byte chars = 20 MB).
    expect(cut.held).toBeGreaterThan(WHOLE_TEXTS_BYTES);
    expect(copied.held).toBeLessThan(COPIES_ONLY_BYTES);
    expect(copied.kept).toEqual(cut.kept);
  });
});

describe('detachedText', () => {
  it('is the same text, short or long, empty or not one byte a character', () => {
    for (const text of ['', 'a', 'HOST-0000000000000007', '5915682011263205071_1521042929000', 'ünïcödé ✓ '.repeat(40)]) expect(detachedText(text)).toBe(text);
    const line = 'name: Service overview — ünïcödé ✓ and more\n';
    expect(detachedText(line.slice(6, 44))).toBe(line.slice(6, 44));
  });

  it('keeps no part of the longer text it was cut from alive', () => {
    const copied = heldByNames(detachedText);
    expect(copied.held).toBeLessThan(COPIES_ONLY_BYTES);
    expect(copied.kept).toEqual(heldByNames((name) => name).kept);
  });
});

describe('DaemonStatus.show', () => {
  /** Heap held once each of the 100 names is shown as `shownOf` makes it, in a file of its own, and kept. */
  function heldInStatus(shownOf: (name: string, file: string) => Omit<ShownDashboard, 'contentHash' | 'layout'>): number {
    const status = new DaemonStatus();
    const layout = packLayout({ tiles: [] });
    let files = 0;
    return heldByNames((name) => {
      const file = `team/file-${files++}.yaml`;
      status.show(file, { ...shownOf(name, file), contentHash: 'h', layout });
      return status.shown(file);
    }).held;
  }

  it('keeps a file\'s id and name without the text of the file they were read from', () => {
    const held = heldInStatus((name) => ({ id: name, name }));
    expect(held).toBeLessThan(4 * 1024 * 1024);
  });

  it('keeps a pending change without the text its values were cut from', () => {
    const held = heldInStatus((name, file) => ({
      id: file,
      name: 'plain',
      pending: { action: 'create', id: file, name, file, desired: { dashboardMetadata: { name, owner: name }, tiles: [] } },
    }));
    expect(held).toBeLessThan(4 * 1024 * 1024);
  });
});
