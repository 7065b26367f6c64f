import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { requestSignals } from '../../../src/client/request.js';

describe('requestSignals: one abort listener per source signal, however many requests are in flight', () => {
  it('twenty requests sharing the client signal and a plan signal add one listener to each; an abort reaches all; releasing all removes them', () => {
    const client = new AbortController();
    const plan = new AbortController();
    const signals = requestSignals(client.signal);
    const open = Array.from({ length: 20 }, () => signals.open(plan.signal));
    expect(getEventListeners(client.signal, 'abort')).toHaveLength(1);
    expect(getEventListeners(plan.signal, 'abort')).toHaveLength(1);
    plan.abort(new Error('plan stopped'));
    expect(open.every((o) => o.signal.aborted && (o.signal.reason as Error).message === 'plan stopped')).toBe(true);
    for (const o of open) o.release();
    expect(getEventListeners(client.signal, 'abort')).toHaveLength(0);
  });

  it('the client signal aborts every request in flight, and a request opened after the abort starts aborted', () => {
    const client = new AbortController();
    const signals = requestSignals(client.signal);
    const first = signals.open(undefined);
    const second = signals.open(new AbortController().signal);
    client.abort(new Error('shutting down'));
    expect([first.signal.aborted, second.signal.aborted]).toEqual([true, true]);
    expect(signals.open(undefined).signal.aborted).toBe(true);
  });
});
