import { describe, expect, it } from 'vitest';
import { writePhase } from '../../../src/cli/write-phase.js';

describe('writePhase: a stop ends reads at once and waits for the writes in flight', () => {
  it('passes a stop before the writes on to the reads, with its reason', () => {
    const stop = new AbortController();
    const phase = writePhase(stop.signal);
    expect(phase.readSignal.aborted).toBe(false);
    stop.abort(new Error('received SIGINT'));
    expect(phase.readSignal.aborted).toBe(true);
    expect((phase.readSignal.reason as Error).message).toBe('received SIGINT');
  });

  it('holds a stop during the writes back from the reads until the writes are over', () => {
    const stop = new AbortController();
    const phase = writePhase(stop.signal);
    phase.beginWrites();
    stop.abort(new Error('received SIGTERM'));
    expect(phase.readSignal.aborted).toBe(false);
    phase.endWrites();
    expect((phase.readSignal.reason as Error).message).toBe('received SIGTERM');
  });

  it('ends the reads of a run stopped before it began, and leaves an unstopped run alone when its writes end', () => {
    const stopped = new AbortController();
    stopped.abort(new Error('early'));
    expect(writePhase(stopped.signal).readSignal.aborted).toBe(true);
    const phase = writePhase(new AbortController().signal);
    phase.beginWrites();
    phase.endWrites();
    expect(phase.readSignal.aborted).toBe(false);
  });
});
