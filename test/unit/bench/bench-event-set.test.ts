import { describe, expect, it } from 'vitest';
import { DEFAULT_ENTITY_COUNT, DEFAULT_OPEN_SHARE } from '../../../bench/data/events.js';
import { eventSetKey } from '../../../bench/figures/event-set.js';

const DAY_MS = 86_400_000;

describe('bench event sets: one build per distinct data set', () => {
  it('shares the default set with a shape that spells out the defaults (events-pull first point)', () => {
    const spelled = { openShare: DEFAULT_OPEN_SHARE, spanMs: 25 * DAY_MS, entityCount: DEFAULT_ENTITY_COUNT };
    expect(eventSetKey(1_000_000, spelled)).toBe(eventSetKey(1_000_000));
    expect(eventSetKey(1_000_000, { openShare: DEFAULT_OPEN_SHARE })).toBe(eventSetKey(1_000_000, {}));
  });

  it('keeps apart sets that differ in size or in any part of their shape', () => {
    const keys = [
      eventSetKey(1_000_000),
      eventSetKey(300_000),
      eventSetKey(1_000_000, { openShare: 0.4 }),
      eventSetKey(1_000_000, { spanMs: 56 * DAY_MS }),
      eventSetKey(1_000_000, { entityCount: 4000 }),
      eventSetKey(1_000_000, { openShare: 0.4, spanMs: 56 * DAY_MS, entityCount: 4000 }),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });
});
