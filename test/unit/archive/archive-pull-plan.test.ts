import { describe, expect, it } from 'vitest';
import type { ArchivedEvent } from '../../../src/archive/archived-event.js';
import { emptyStream, type StreamState } from '../../../src/archive/checkpoint.js';
import {
  changedOpenEvents,
  completeRun,
  createPositionTracker,
  nextWindow,
  observeOpen,
  planRun,
  planSpotChecks,
  type OpenEvent,
  type PlanOptions,
} from '../../../src/archive/pull-plan.js';
import { MAX_EVENTS_TIMEFRAME_MS } from '../../../src/schema/events.js';
import { COPIES_ONLY_BYTES, cutFields, heapHeldBy } from '../../helpers/held-heap.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = 1_800_000_000_000;
const OPTIONS: PlanOptions = { since: { back: 30 * DAY }, lateArrivalMs: 15 * 60_000, maxReachBackMs: DAY, openRetentionMs: 90 * DAY };

function archived(id: string, startTime: number, eventStatus = 'CLOSED', extra: Partial<ArchivedEvent['event']> = {}): ArchivedEvent {
  const event = { id, eventId: id, startTime, endTime: undefined, eventStatus, eventType: 'CUSTOM_INFO', entityId: 'HOST-1', entityName: undefined, ...extra };
  return { raw: JSON.stringify(event), event };
}

describe('planRun', () => {
  it('goes back --since on the first run', () => {
    expect(planRun(emptyStream(), new Map(), NOW, OPTIONS)).toEqual({ from: NOW - 30 * DAY, to: NOW, position: NOW });
  });

  it('continues from the last end minus the late-arrival margin', () => {
    const stream: StreamState = { ...emptyStream(), watermark: NOW - HOUR, horizon: NOW - 30 * DAY };
    expect(planRun(stream, new Map(), NOW, OPTIONS).from).toBe(NOW - HOUR - 15 * 60_000);
  });

  it('reaches back to the oldest open event within the bound, not to older ones', () => {
    const stream: StreamState = { ...emptyStream(), watermark: NOW - HOUR, horizon: NOW - 30 * DAY };
    const open = new Map<string, OpenEvent>([
      ['a', { startTime: NOW - 5 * HOUR }],
      ['b', { startTime: NOW - 3 * DAY }],
    ]);
    expect(planRun(stream, open, NOW, OPTIONS).from).toBe(NOW - 5 * HOUR);
  });

  it('widens history when a later --since reaches before anything archived', () => {
    const stream: StreamState = { ...emptyStream(), watermark: NOW - HOUR, horizon: NOW - 30 * DAY };
    expect(planRun(stream, new Map(), NOW, { ...OPTIONS, since: { back: 60 * DAY } }).from).toBe(NOW - 60 * DAY);
  });

  it('starts a --since instant at that instant, whenever the run begins (a span made of it at the start began a few ms late)', () => {
    const at = NOW - 10 * DAY;
    expect(planRun(emptyStream(), new Map(), NOW + 37, { ...OPTIONS, since: { from: at } }).from).toBe(at);
    expect(planRun(emptyStream(), new Map(), NOW + 37, { ...OPTIONS, since: { back: 10 * DAY } }).from).toBe(at + 37);
    const later: StreamState = { ...emptyStream(), watermark: NOW - HOUR, horizon: NOW - DAY };
    expect(planRun(later, new Map(), NOW, { ...OPTIONS, since: { from: at } }).from).toBe(at);
  });

  it('never starts before the epoch: a --since longer than the clock reads starts at 0', () => {
    expect(planRun(emptyStream(), new Map(), 10 * DAY, OPTIONS)).toEqual({ from: 0, to: 10 * DAY, position: 10 * DAY });
    const recent: StreamState = { ...emptyStream(), watermark: 5 * 60_000, horizon: 0 };
    expect(planRun(recent, new Map(), 10 * DAY, OPTIONS).from).toBe(0);
  });

  it('reaches back to an open event that started exactly at the reach-back bound', () => {
    const stream: StreamState = { ...emptyStream(), watermark: NOW - HOUR, horizon: NOW - 30 * DAY };
    const open = new Map<string, OpenEvent>([['edge', { startTime: NOW - DAY }]]);
    expect(planRun(stream, open, NOW, OPTIONS).from).toBe(NOW - DAY);
  });

  it('ends at the watermark, not before it, when the clock reads earlier than the last run ended', () => {
    const stream: StreamState = { ...emptyStream(), watermark: NOW + HOUR, horizon: NOW - 30 * DAY };
    expect(planRun(stream, new Map(), NOW, OPTIONS)).toEqual({ from: NOW + HOUR - 15 * 60_000, to: NOW + HOUR, position: NOW + HOUR });
  });

  it('resumes an interrupted run as it was', () => {
    const run = { from: 1, to: 10, position: 5 };
    expect(planRun({ ...emptyStream(), run }, new Map(), NOW, OPTIONS)).toBe(run);
  });
});

describe('windows and positions', () => {
  it('splits a long run into windows of at most the 2-year limit, newest first', () => {
    const run = { from: 0, to: 5 * 365 * DAY, position: 5 * 365 * DAY };
    const windows = [];
    for (let window = nextWindow(run); window; window = nextWindow(run)) {
      windows.push(window);
      run.position = window.from;
    }
    expect(windows).toHaveLength(3);
    for (const window of windows) expect(window.to - window.from).toBeLessThanOrEqual(MAX_EVENTS_TIMEFRAME_MS);
    expect(windows.at(-1)?.from).toBe(0);
  });

  it('moves the resume position to just after the oldest start seen, never below the window', () => {
    const tracker = createPositionTracker({ from: 100, to: 1000 });
    expect(tracker.observe([archived('a', 900), archived('b', 800)])).toBe(801);
    expect(tracker.observe([archived('c', 800), archived('d', 50)])).toBe(100);
  });

  it('stops moving the position when the feed breaks its newest-first order', () => {
    const tracker = createPositionTracker({ from: 100, to: 1000 });
    expect(tracker.observe([archived('a', 500)])).toBe(501);
    expect(tracker.observe([archived('b', 600)])).toBe(1000);
    expect(tracker.observe([archived('c', 200)])).toBe(1000);
  });

  it('records a completed run as the new watermark and horizon', () => {
    expect(completeRun({ ...emptyStream(), horizon: 50 }, { from: 100, to: 900, position: 100 })).toEqual({ ...emptyStream(), horizon: 50, watermark: 900, run: null });
  });

  it('moves the resume watermark forward to the end of each completed run, and the horizon back to its start', () => {
    const first = completeRun({ ...emptyStream(), run: { from: NOW - 30 * DAY, to: NOW, position: NOW } }, { from: NOW - 30 * DAY, to: NOW, position: NOW - 30 * DAY });
    expect(first).toEqual({ ...emptyStream(), watermark: NOW, horizon: NOW - 30 * DAY });
    const second = completeRun(first, { from: NOW - 15 * 60_000, to: NOW + HOUR, position: NOW - 15 * 60_000 });
    expect(second.watermark).toBe(NOW + HOUR);
    expect(second.horizon).toBe(NOW - 30 * DAY);
    const widened = completeRun(second, { from: NOW - 60 * DAY, to: NOW + 2 * HOUR, position: NOW - 60 * DAY });
    expect(widened).toMatchObject({ watermark: NOW + 2 * HOUR, horizon: NOW - 60 * DAY, run: null });
  });

  it('never moves the watermark back, even when a run ends before it (the clock went back)', () => {
    const stream: StreamState = { ...emptyStream(), watermark: NOW + HOUR, horizon: NOW - 30 * DAY };
    expect(completeRun(stream, { from: NOW - 2 * HOUR, to: NOW, position: NOW - 2 * HOUR })).toMatchObject({ watermark: NOW + HOUR, horizon: NOW - 30 * DAY });
  });

  it('clears the run when recording a completed run', () => {
    const stream: StreamState = { watermark: 10, horizon: 0, run: { from: 5, to: 20, position: 5 } };
    expect(completeRun(stream, { from: 5, to: 20, position: 5 })).toEqual({ watermark: 20, horizon: 0, run: null });
  });

  it('pages a 5-year run as windows of exactly the 2-year limit (63072000000 ms), newest first, the last one shorter', () => {
    const run = { from: 0, to: 157_680_000_000, position: 157_680_000_000 };
    expect(nextWindow(run)).toEqual({ from: 94_608_000_000, to: 157_680_000_000 });
    expect(nextWindow({ ...run, position: 94_608_000_000 })).toEqual({ from: 31_536_000_000, to: 94_608_000_000 });
    expect(nextWindow({ ...run, position: 31_536_000_000 })).toEqual({ from: 0, to: 31_536_000_000 });
    expect(nextWindow({ ...run, position: 0 })).toBeUndefined();
  });

  it('has no window left once the position reached the start, and one of a millisecond just before', () => {
    expect(nextWindow({ from: 100, to: 900, position: 100 })).toBeUndefined();
    expect(nextWindow({ from: 100, to: 900, position: 101 })).toEqual({ from: 100, to: 101 });
  });

  it('does not move the position on an empty page, and keeps moving it through events sharing a start time', () => {
    const tracker = createPositionTracker({ from: 1521042929000 - DAY, to: 1521542929000 });
    expect(tracker.observe([])).toBe(1521542929000);
    // The specification example page: two events starting at the same millisecond.
    expect(tracker.observe([archived('5915682011263205071_1521042929000', 1521042929000), archived('5915682011263205071_1521042929000', 1521042929000)])).toBe(1521042929001);
    expect(tracker.observe([archived('x', 1521042929000)])).toBe(1521042929001);
  });

  it('keeps the position at the window end when the only event starts exactly there', () => {
    const tracker = createPositionTracker({ from: 100, to: 1000 });
    expect(tracker.observe([archived('a', 1000)])).toBe(1000);
  });
});

describe('open events', () => {
  it('enter the open set when seen OPEN and leave it when seen with any other status', () => {
    const open = new Map<string, OpenEvent>();
    for (const { event } of [archived('a', 1, 'OPEN'), archived('b', 2, 'OPEN'), archived('a', 1, 'CLOSED')]) observeOpen(open, event);
    expect([...open.keys()]).toEqual(['b']);
  });

  it('are remembered with their start, end, entity and type when seen OPEN', () => {
    const open = new Map<string, OpenEvent>();
    observeOpen(open, archived('5915682011263205071_1521042929000', 1521042929000, 'OPEN', { endTime: 1521542929000, entityId: 'HOST-0000000000000007' }).event);
    expect([...open]).toEqual([
      ['5915682011263205071_1521042929000', { startTime: 1521042929000, endTime: 1521542929000, entityId: 'HOST-0000000000000007', eventType: 'CUSTOM_INFO' }],
    ]);
  });

  it('are remembered without the page text their id, entity and type were cut from', () => {
    const open = new Map<string, OpenEvent>();
    const { held } = heapHeldBy(
      (i) => `59156820112632050${String(i).padStart(2, '0')}_1521042929000 HOST-00000000000000${String(i).padStart(2, '0')} PROCESS_RESTART `,
      (page) => {
        const [id = '', entityId, eventType] = cutFields(page, 3);
        observeOpen(open, archived(id, 1521042929000, 'OPEN', { entityId, eventType }).event);
      },
    );
    expect(open.size).toBe(100);
    expect(open.get('5915682011263205042_1521042929000')).toEqual({ startTime: 1521042929000, endTime: undefined, entityId: 'HOST-0000000000000042', eventType: 'PROCESS_RESTART' });
    expect(held).toBeLessThan(COPIES_ONLY_BYTES);
  });

  it('get one spot check each when they are more than a day apart, and a shared one at exactly a day', () => {
    const open = new Map<string, OpenEvent>([
      ['a', { startTime: 10 * DAY, entityId: 'HOST-1' }],
      ['b', { startTime: 11 * DAY, entityId: 'HOST-1' }],
      ['c', { startTime: 12 * DAY + 1, entityId: 'HOST-1' }],
      ['covered', { startTime: 20 * DAY, entityId: 'HOST-1' }],
    ]);
    expect(planSpotChecks(open, 20 * DAY)).toEqual([
      { from: 10 * DAY, to: 11 * DAY + 1, entityId: 'HOST-1' },
      { from: 12 * DAY + 1, to: 12 * DAY + 2, entityId: 'HOST-1' },
    ]);
  });

  it('spot checks come in entity order, then start order, whatever order the open set holds them in', () => {
    const open = new Map<string, OpenEvent>([
      ['late', { startTime: 5 * DAY, entityId: 'HOST-B' }],
      ['b-early', { startTime: 2 * DAY, entityId: 'HOST-B' }],
      ['a', { startTime: 9 * DAY, entityId: 'HOST-A' }],
    ]);
    expect(planSpotChecks(open, 20 * DAY).map((check) => [check.entityId, check.from])).toEqual([
      ['HOST-A', 9 * DAY],
      ['HOST-B', 2 * DAY],
      ['HOST-B', 5 * DAY],
    ]);
  });

  it('older than the window get one spot check per entity and day', () => {
    const open = new Map<string, OpenEvent>([
      ['a', { startTime: 10 * DAY, entityId: 'HOST-1' }],
      ['b', { startTime: 10 * DAY + HOUR, entityId: 'HOST-1' }],
      ['c', { startTime: 12 * DAY, entityId: 'HOST-1' }],
      ['d', { startTime: 10 * DAY, entityId: 'HOST-2' }],
      ['recent', { startTime: 30 * DAY, entityId: 'HOST-1' }],
      ['x', { startTime: 11 * DAY }],
      ['y', { startTime: 11 * DAY + 1 }],
    ]);
    const all = planSpotChecks(open, 20 * DAY);
    expect(all).toEqual([
      { from: 11 * DAY, to: 11 * DAY + 1, entityId: undefined },
      { from: 11 * DAY + 1, to: 11 * DAY + 2, entityId: undefined },
      { from: 10 * DAY, to: 10 * DAY + HOUR + 1, entityId: 'HOST-1' },
      { from: 12 * DAY, to: 12 * DAY + 1, entityId: 'HOST-1' },
      { from: 10 * DAY, to: 10 * DAY + 1, entityId: 'HOST-2' },
    ]);
  });

  it('spot checks write only changed versions of the events they look for', () => {
    const open = new Map<string, OpenEvent>([['a', { startTime: 1 }], ['b', { startTime: 2 }]]);
    const page = [archived('a', 1, 'CLOSED'), archived('b', 2, 'OPEN'), archived('other', 3, 'CLOSED')];
    expect(changedOpenEvents(open, page).map((e) => e.event.id)).toEqual(['a']);
  });

  it('a spot check writes an event still OPEN only when its end time moved', () => {
    const open = new Map<string, OpenEvent>([['a', { startTime: 1, endTime: 50 }], ['b', { startTime: 2, endTime: 60 }]]);
    const page = [archived('a', 1, 'OPEN', { endTime: 50 }), archived('b', 2, 'OPEN', { endTime: 70 })];
    expect(changedOpenEvents(open, page).map((e) => e.event.id)).toEqual(['b']);
  });
});
