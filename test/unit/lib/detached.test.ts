import { describe, expect, it } from 'vitest';
import { releaseMemory } from '../../../src/daemon/release-memory.js';
import { detached } from '../../../src/lib/detached.js';
import { DaemonStatus, type ShownDashboard } from '../../../src/daemon/daemon-status.js';
import { packLayout } from '../../../src/daemon/packed-layout.js';

const TEXTS = 100;
const TEXT_CHARS = 200_000;

/** Heap bytes still held, after full collections, by one short name cut from each of 100 texts of 200,000 chars. */
function heldByNames(keep: (name: string) => unknown): { held: number; kept: unknown[] } {
  releaseMemory();
  const before = process.memoryUsage().heapUsed;
  const kept: unknown[] = [];
  for (let i = 0; i < TEXTS; i++) {
    // A flat text of its own (Buffer.toString), the way a file's contents arrive, with a name cut out of it.
    const text = Buffer.alloc(TEXT_CHARS, `name: dashboard number ${i} of the folder\n`).toString('latin1');
    kept.push(keep(text.slice(6, 40)));
  }
  releaseMemory();
  return { held: process.memoryUsage().heapUsed - before, kept };
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
    expect(cut.held).toBeGreaterThan(15 * 1024 * 1024);
    expect(copied.held).toBeLessThan(2 * 1024 * 1024);
    expect(copied.kept).toEqual(cut.kept);
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
