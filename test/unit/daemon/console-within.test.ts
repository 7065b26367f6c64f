import { describe, expect, it } from 'vitest';
import type { ConsoleEvent, ConsoleEvents } from '../../../src/console/console-data.js';
import { within } from '../../../src/daemon/daemon-console.js';

const event = (start: number): ConsoleEvent => ({ id: `e-${start}`, type: 'T', start, end: undefined, status: 'OPEN', entity: undefined });
/** A read of the widest window, newest first. */
const read = (starts: number[], cut: boolean): ConsoleEvents => ({ events: starts.map(event), cut, types: ['T', 'U'] });

describe("a narrower window's part of a read of the widest", () => {
  it('keeps the events that started from `from` on, newest first, and the types of the whole read', () => {
    const part = within(read([50, 40, 30, 20], false), 30);
    expect(part.events.map((e) => e.start)).toEqual([50, 40, 30]);
    expect(part).toMatchObject({ cut: false, types: ['T', 'U'] });
  });

  it('is cut only when the read was cut before it reached back past `from`', () => {
    expect(within(read([50, 40, 30], true), 30).cut).toBe(true);
    expect(within(read([50, 40, 30], true), 31).cut).toBe(false);
    expect(within(read([50, 40, 30], true), 25).cut).toBe(true);
    expect(within(read([50, 40, 30], false), 25).cut).toBe(false);
    // Cut with nothing read: the window may hold anything.
    expect(within(read([], true), 25)).toMatchObject({ events: [], cut: true });
    expect(within(read([], false), 25)).toMatchObject({ events: [], cut: false });
  });
});
