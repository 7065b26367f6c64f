import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { bodyBudget, collectBody } from '../../../src/lib/collect-body.js';

const KB = 1024;
const options = { limit: 10 * KB, deadlineMs: 60_000 };

describe('collectBody with a budget: a body held by the bytes that arrived', () => {
  it('reads a whole body and gives its bytes back to the budget once read', async () => {
    const budget = bodyBudget(16 * KB);
    const body = new PassThrough();
    const read = collectBody(body, { ...options, budget });
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
    const pending = idle.map((body) => collectBody(body, { ...options, budget }));
    const real = new PassThrough();
    const read = collectBody(real, { ...options, budget });
    real.end(Buffer.alloc(8 * KB));
    expect((await read).ok).toBe(true);
    for (const body of idle) body.destroy();
    expect(await Promise.all(pending)).toEqual(idle.map(() => ({ ok: false, why: 'gone' })));
  });

  it('refuses the body whose bytes would pass the budget, and leaves the others their share', async () => {
    const budget = bodyBudget(16 * KB);
    const first = new PassThrough();
    const second = new PassThrough();
    const firstRead = collectBody(first, { ...options, budget });
    const secondRead = collectBody(second, { ...options, budget });
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

  it('gives back what a body held once, however it ends: a refusal then its stream erroring, closing or ending frees nothing twice', async () => {
    for (const end of [(s: PassThrough) => s.destroy(new Error('reset')), (s: PassThrough) => s.destroy(), (s: PassThrough) => s.resume().end()]) {
      const budget = bodyBudget(16 * KB);
      const body = new PassThrough();
      body.on('error', () => undefined);
      const read = collectBody(body, { limit: 4 * KB, deadlineMs: 60_000, budget });
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
    const read = collectBody(body, { ...options, budget });
    body.write(Buffer.alloc(3 * KB));
    body.emit('error', new Error('ECONNRESET'));
    expect(await read).toEqual({ ok: false, why: 'gone' });
    expect(budget.reserve(16 * KB)).toBe(true);
  });

  it('refuses a body past its own limit, giving back what it held', async () => {
    const budget = bodyBudget(64 * KB);
    const body = new PassThrough();
    const read = collectBody(body, { ...options, budget });
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
      const read = collectBody(body, { limit: 10 * KB, deadlineMs: 5_000, budget });
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

describe('collectBody without a budget or a deadline', () => {
  it('refuses a declared length over the limit before reading, and takes one at the limit', async () => {
    const over = Object.assign(new PassThrough(), { headers: { 'content-length': String(4 * KB + 1) } });
    expect(await collectBody(over, { limit: 4 * KB })).toEqual({ ok: false, why: 'too-large' });
    // Nothing was read: the bytes are still there for whoever wants them.
    over.end(Buffer.alloc(10));
    expect(over.read()).toHaveLength(10);
    const atLimit = Object.assign(new PassThrough(), { headers: { 'content-length': String(4 * KB) } });
    const read = collectBody(atLimit, { limit: 4 * KB });
    atLimit.end(Buffer.alloc(4 * KB, 7));
    const result = await read;
    expect(result.ok && result.bytes.length).toBe(4 * KB);
  });

  it('hands a body that arrived in one chunk over as that chunk, and joins several in order', async () => {
    const one = new PassThrough();
    const chunk = Buffer.from('{"a":1}');
    const read = collectBody(one, { limit: KB });
    one.end(chunk);
    const whole = await read;
    expect(whole.ok && whole.bytes.buffer === chunk.buffer && whole.bytes.byteOffset === chunk.byteOffset).toBe(true);
    const many = new PassThrough();
    const joined = collectBody(many, { limit: KB });
    many.write('ab');
    many.write('cd');
    many.end('e');
    const result = await joined;
    expect(result.ok && result.bytes.toString()).toBe('abcde');
  });

  it('takes an empty body as empty, and a body of exactly the limit whole', async () => {
    const empty = new PassThrough();
    const read = collectBody(empty, { limit: KB });
    empty.end();
    const result = await read;
    expect(result.ok && result.bytes.length).toBe(0);
    const exact = new PassThrough();
    const exactRead = collectBody(exact, { limit: KB });
    exact.write(Buffer.alloc(KB - 1));
    exact.end(Buffer.alloc(1));
    const exactResult = await exactRead;
    expect(exactResult.ok && exactResult.bytes.length).toBe(KB);
  });

  it('a body whose client leaves without an error is gone, not pending for ever', async () => {
    const body = new PassThrough();
    const read = collectBody(body, { limit: KB });
    body.write('half');
    body.destroy();
    expect(await read).toEqual({ ok: false, why: 'gone' });
  });

  it('sets no timer without a deadline: a slow body is read whenever it ends', async () => {
    vi.useFakeTimers();
    try {
      const body = new PassThrough();
      const read = collectBody(body, { limit: KB });
      expect(vi.getTimerCount()).toBe(0);
      body.write('a');
      await vi.advanceTimersByTimeAsync(3_600_000);
      body.end('b');
      const result = await read;
      expect(result.ok && result.bytes.toString()).toBe('ab');
    } finally {
      vi.useRealTimers();
    }
  });
});
