import { describe, expect, it } from 'vitest';
import { concurrencyLimit, QueueFullError } from '../../../src/lib/concurrency.js';

/** A task that runs until released, recording when it starts. */
function gatedTask(log: string[], name: string, outcome: 'resolve' | 'reject' = 'resolve'): { task: () => Promise<string>; release: () => void } {
  let release = (): void => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const task = async (): Promise<string> => {
    log.push(`start ${name}`);
    await gate;
    if (outcome === 'reject') throw new Error(`${name} failed`);
    return name;
  };
  return { task, release: () => release() };
}

/** Lets every settled promise's reactions run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('concurrencyLimit', () => {
  it('runs at most the limit at once; the rest start in the order they came, each as a place frees', async () => {
    const log: string[] = [];
    const limit = concurrencyLimit(2);
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => gatedTask(log, name)) as [ReturnType<typeof gatedTask>, ReturnType<typeof gatedTask>, ReturnType<typeof gatedTask>, ReturnType<typeof gatedTask>];
    const results = [a, b, c, d].map((t) => limit(t.task));
    await settle();
    expect(log).toEqual(['start a', 'start b']);
    b.release();
    await settle();
    expect(log).toEqual(['start a', 'start b', 'start c']);
    a.release();
    await settle();
    expect(log).toEqual(['start a', 'start b', 'start c', 'start d']);
    c.release();
    d.release();
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('frees a place when a task fails, and passes the failure on', async () => {
    const log: string[] = [];
    const limit = concurrencyLimit(1);
    const failing = gatedTask(log, 'x', 'reject');
    const next = gatedTask(log, 'y');
    const first = limit(failing.task);
    const second = limit(next.task);
    await settle();
    expect(log).toEqual(['start x']);
    failing.release();
    await expect(first).rejects.toThrow('x failed');
    await settle();
    expect(log).toEqual(['start x', 'start y']);
    next.release();
    expect(await second).toBe('y');
  });

  it('starts at once again once everything settled: the places were all given back', async () => {
    const log: string[] = [];
    const limit = concurrencyLimit(1);
    for (const name of ['p', 'q', 'r']) {
      const t = gatedTask(log, name);
      const result = limit(t.task);
      await settle();
      expect(log.at(-1)).toBe(`start ${name}`);
      t.release();
      expect(await result).toBe(name);
    }
    // Two in line behind a third: the places handed over never add up to more than the limit.
    const [m, n, o] = ['m', 'n', 'o'].map((name) => gatedTask(log, name)) as [ReturnType<typeof gatedTask>, ReturnType<typeof gatedTask>, ReturnType<typeof gatedTask>];
    const all = [m, n, o].map((t) => limit(t.task));
    m.release();
    await settle();
    expect(log.slice(-2)).toEqual(['start m', 'start n']);
    n.release();
    await settle();
    o.release();
    expect(await Promise.all(all)).toEqual(['m', 'n', 'o']);
    const after = gatedTask(log, 'z');
    const last = limit(after.task);
    await settle();
    expect(log.at(-1)).toBe('start z');
    after.release();
    await last;
  });

  it('refuses a task past the waiting bound at once, and takes one again once the line moved', async () => {
    const log: string[] = [];
    const limit = concurrencyLimit(1, 2);
    const [a, b, c] = ['a', 'b', 'c'].map((name) => gatedTask(log, name)) as [ReturnType<typeof gatedTask>, ReturnType<typeof gatedTask>, ReturnType<typeof gatedTask>];
    const running = limit(a.task);
    const waiting = [limit(b.task), limit(c.task)];
    const refused = gatedTask(log, 'd');
    await expect(limit(refused.task)).rejects.toBeInstanceOf(QueueFullError);
    await settle();
    expect(log).toEqual(['start a']);
    a.release();
    await running;
    await settle();
    expect(log).toEqual(['start a', 'start b']);
    // b runs, c waits: one place in line again.
    const again = gatedTask(log, 'e');
    const taken = limit(again.task);
    await expect(limit(gatedTask(log, 'f').task)).rejects.toThrow('1 running and 2 waiting');
    b.release();
    c.release();
    again.release();
    expect(await Promise.all([...waiting, taken])).toEqual(['b', 'c', 'e']);
    expect(log).toEqual(['start a', 'start b', 'start c', 'start e']);
  });
});
