import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { bodyBudget, readWithinBudget } from '../../../src/daemon/budgeted-body.js';

const KB = 1024;
const options = { limit: 10 * KB, deadlineMs: 60_000 };

describe('readWithinBudget: a body held by the bytes that arrived', () => {
  it('reads a whole body and gives its bytes back to the budget once read', async () => {
    const budget = bodyBudget(16 * KB);
    const body = new PassThrough();
    const read = readWithinBudget(body, budget, options);
    body.write(Buffer.alloc(4 * KB, 1));
    body.end(Buffer.alloc(KB, 2));
    const result = await read;
    expect(result.ok && result.bytes.length).toBe(5 * KB);
    // All of the budget is free again: one body of the whole 16 KB fits.
    expect(budget.reserve(16 * KB)).toBe(true);
  });

  it('holds nothing for a body that has not arrived: idle connections cannot lock others out', async () => {
    const budget = bodyBudget(16 * KB);
    const idle = [new PassThrough(), new PassThrough(), new PassThrough()];
    const pending = idle.map((body) => readWithinBudget(body, budget, options));
    const real = new PassThrough();
    const read = readWithinBudget(real, budget, options);
    real.end(Buffer.alloc(8 * KB));
    expect((await read).ok).toBe(true);
    for (const body of idle) body.destroy();
    expect(await Promise.all(pending)).toEqual(idle.map(() => ({ ok: false, why: 'gone' })));
  });

  it('refuses the body whose bytes would pass the budget, and leaves the others their share', async () => {
    const budget = bodyBudget(16 * KB);
    const first = new PassThrough();
    const second = new PassThrough();
    const firstRead = readWithinBudget(first, budget, options);
    const secondRead = readWithinBudget(second, budget, options);
    first.write(Buffer.alloc(9 * KB));
    second.write(Buffer.alloc(8 * KB));
    expect(await secondRead).toEqual({ ok: false, why: 'over-budget' });
    // Paused, not destroyed: the answer can still be written on its connection.
    expect([second.destroyed, second.isPaused()]).toEqual([false, true]);
    first.end(Buffer.alloc(KB));
    const result = await firstRead;
    expect(result.ok && result.bytes.length).toBe(10 * KB);
    expect(first.isPaused()).toBe(false);
    expect(budget.reserve(16 * KB)).toBe(true);
    budget.release(16 * KB);
    // Whatever the refused one does afterwards (more bytes, its end, an error, its close) holds or frees nothing more.
    const ended = new Promise((resolve) => second.once('end', resolve));
    second.resume();
    second.write(Buffer.alloc(2 * KB));
    second.end();
    await ended;
    expect(budget.reserve(16 * KB)).toBe(true);
    expect(budget.reserve(1)).toBe(false);
  });

  it('gives back what a body held once, however it ends: a refusal then its stream erroring or closing frees nothing twice', async () => {
    for (const end of [(s: PassThrough) => s.destroy(new Error('reset')), (s: PassThrough) => s.destroy()]) {
      const budget = bodyBudget(16 * KB);
      const body = new PassThrough();
      body.on('error', () => undefined);
      const read = readWithinBudget(body, budget, { limit: 4 * KB, deadlineMs: 60_000 });
      body.write(Buffer.alloc(3 * KB));
      body.write(Buffer.alloc(2 * KB));
      expect(await read).toEqual({ ok: false, why: 'too-large' });
      const closed = new Promise((resolve) => body.once('close', resolve));
      end(body);
      await closed;
      expect(budget.reserve(16 * KB)).toBe(true);
      expect(budget.reserve(1)).toBe(false);
    }
  });

  it('a body whose stream fails is gone, and frees what it held', async () => {
    const budget = bodyBudget(16 * KB);
    const body = new PassThrough();
    const read = readWithinBudget(body, budget, options);
    body.write(Buffer.alloc(3 * KB));
    body.emit('error', new Error('ECONNRESET'));
    expect(await read).toEqual({ ok: false, why: 'gone' });
    expect(budget.reserve(16 * KB)).toBe(true);
  });

  it('refuses a body past its own limit, giving back what it held', async () => {
    const budget = bodyBudget(64 * KB);
    const body = new PassThrough();
    const read = readWithinBudget(body, budget, options);
    body.write(Buffer.alloc(6 * KB));
    body.write(Buffer.alloc(5 * KB));
    expect(await read).toEqual({ ok: false, why: 'too-large' });
    expect(budget.reserve(64 * KB)).toBe(true);
  });

  it('cuts a body not whole by the deadline and frees what it held', async () => {
    vi.useFakeTimers();
    try {
      const budget = bodyBudget(16 * KB);
      const body = new PassThrough();
      const read = readWithinBudget(body, budget, { limit: 10 * KB, deadlineMs: 5_000 });
      body.write(Buffer.alloc(8 * KB));
      await vi.advanceTimersByTimeAsync(4_999);
      expect(budget.reserve(9 * KB)).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(await read).toEqual({ ok: false, why: 'too-slow' });
      expect(budget.reserve(16 * KB)).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
