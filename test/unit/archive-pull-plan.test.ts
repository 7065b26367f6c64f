import { describe, expect, it } from 'vitest';
import type { ArchivedEvent } from '../../src/archive/archived-event.js';
import { emptyStream, type StreamState } from '../../src/archive/checkpoint.js';
import {
  changedOpenEvents,
  completeRun,
  createPositionTracker,
  expiredOpen,
  nextWindow,
  observeOpen,
  planRun,
  planSpotChecks,
  type OpenEvent,
  type PlanOptions,
} from '../../src/archive/pull-plan.js';
import { MAX_EVENTS_TIMEFRAME_MS } from '../../src/schema/events.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = 1_800_000_000_000;
const OPTIONS: PlanOptions = { sinceMs: 30 * DAY, lateArrivalMs: 15 * 60_000, maxReachBackMs: DAY, openRetentionMs: 90 * DAY };

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
    expect(planRun(stream, new Map(), NOW, { ...OPTIONS, sinceMs: 60 * DAY }).from).toBe(NOW - 60 * DAY);
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
});

describe('open events', () => {
  it('enter the open set when seen OPEN and leave it when seen with any other status', () => {
    const open = new Map<string, OpenEvent>();
    observeOpen(open, [archived('a', 1, 'OPEN'), archived('b', 2, 'OPEN')]);
    observeOpen(open, [archived('a', 1, 'CLOSED')]);
    expect([...open.keys()]).toEqual(['b']);
  });

  it('expire after the retention bound', () => {
    const open = new Map<string, OpenEvent>([['old', { startTime: NOW - 91 * DAY }], ['new', { startTime: NOW - DAY }]]);
    expect(expiredOpen(open, NOW, OPTIONS)).toEqual(['old']);
  });

  it('older than the window get one spot check per entity and day, in rotation when over the limit', () => {
    const open = new Map<string, OpenEvent>([
      ['a', { startTime: 10 * DAY, entityId: 'HOST-1' }],
      ['b', { startTime: 10 * DAY + HOUR, entityId: 'HOST-1' }],
      ['c', { startTime: 12 * DAY, entityId: 'HOST-1' }],
      ['d', { startTime: 10 * DAY, entityId: 'HOST-2' }],
      ['recent', { startTime: 30 * DAY, entityId: 'HOST-1' }],
      ['x', { startTime: 11 * DAY }],
      ['y', { startTime: 11 * DAY + 1 }],
    ]);
    const all = planSpotChecks(open, 20 * DAY, 10, 0);
    expect(all).toEqual([
      { from: 11 * DAY, to: 11 * DAY + 1, entityId: undefined },
      { from: 11 * DAY + 1, to: 11 * DAY + 2, entityId: undefined },
      { from: 10 * DAY, to: 10 * DAY + HOUR + 1, entityId: 'HOST-1' },
      { from: 12 * DAY, to: 12 * DAY + 1, entityId: 'HOST-1' },
      { from: 10 * DAY, to: 10 * DAY + 1, entityId: 'HOST-2' },
    ]);
    expect(planSpotChecks(open, 20 * DAY, 3, 4)).toEqual([all[4], all[0], all[1]]);
  });

  it('spot checks write only changed versions of the events they look for', () => {
    const open = new Map<string, OpenEvent>([['a', { startTime: 1 }], ['b', { startTime: 2 }]]);
    const page = [archived('a', 1, 'CLOSED'), archived('b', 2, 'OPEN'), archived('other', 3, 'CLOSED')];
    expect(changedOpenEvents(open, page).map((e) => e.event.id)).toEqual(['a']);
  });
});
