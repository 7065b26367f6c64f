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

  it('thirty clients on one stop signal (a daemon’s environments, pass after pass) add one listener to it, and release it', () => {
    const daemon = new AbortController();
    const open = Array.from({ length: 30 }, () => requestSignals(daemon.signal).open(new AbortController().signal));
    expect(getEventListeners(daemon.signal, 'abort')).toHaveLength(1);
    open[0]?.release();
    expect(getEventListeners(daemon.signal, 'abort')).toHaveLength(1);
    daemon.abort(new Error('stopping'));
    // A released request no longer follows the signal; every other one is aborted with its reason.
    expect(open.map((o) => o.signal.aborted)).toEqual([false, ...Array.from({ length: 29 }, () => true)]);
    expect(open.slice(1).every((o) => (o.signal.reason as Error).message === 'stopping')).toBe(true);
    for (const o of open) o.release();
    expect(getEventListeners(daemon.signal, 'abort')).toHaveLength(0);
  });
});
