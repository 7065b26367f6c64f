import { describe, expect, it } from 'vitest';
import type { ConsoleEvent } from '../../../src/console/console-data.js';
import { eventFilterOf, eventMatches, filterKey } from '../../../src/console/event-filter.js';

const EVENT: ConsoleEvent = { id: 'Ev-1', type: 'ERROR_EVENT', start: 0, end: undefined, status: 'OPEN', entity: 'HOST-Abc' };

describe('the events page filter', () => {
  it('matches by type and status exactly, and by part of the id or entity in any case', () => {
    expect(eventMatches(EVENT, {})).toBe(true);
    expect(eventMatches(EVENT, { type: 'ERROR_EVENT', status: 'OPEN', text: 'host-a' })).toBe(true);
    expect(eventMatches(EVENT, { type: 'error_event' })).toBe(false);
    expect(eventMatches(EVENT, { status: 'CLOSED' })).toBe(false);
    expect(eventMatches(EVENT, { text: 'EV-' })).toBe(true);
    expect(eventMatches(EVENT, { text: 'nothing' })).toBe(false);
    expect(eventMatches({ ...EVENT, entity: undefined }, { text: 'host' })).toBe(false);
  });

  it('keys views asking the same alike, and any difference apart', () => {
    const keys = [{}, { type: 'A' }, { status: 'A' }, { text: 'A' }, { type: 'A', status: 'A' }, { text: 'null' }].map(filterKey);
    expect(new Set(keys).size).toBe(keys.length);
    expect(filterKey({ type: 'A', text: undefined })).toBe(filterKey({ type: 'A' }));
    expect(filterKey(eventFilterOf(new URLSearchParams('type=A&q=%20')))).toBe(filterKey({ type: 'A' }));
  });
});
