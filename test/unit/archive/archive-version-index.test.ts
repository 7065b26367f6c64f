import { describe, expect, it } from 'vitest';
import { readEventView, type ArchivedEventView } from '../../../src/archive/archived-event.js';
import { VersionIndex } from '../../../src/archive/version-index.js';

/** The specification example event (SLOW_DISK on HOST-0000000000000007), with the status and end time given. */
function version(eventStatus: string | undefined, endTime: number | undefined, id = '5915682011263205071_1521042929000'): ArchivedEventView {
  return {
    ...readEventView(`{"id":"${id}","startTime":1521042929000,"entityId":"HOST-0000000000000007"}`),
    eventStatus,
    endTime,
  };
}

describe('VersionIndex', () => {
  it('holds a version once: the same id, status and end time again is not added', () => {
    const index = new VersionIndex();
    expect(index.add(version('OPEN', 1521542929000))).toBe(true);
    expect(index.add(version('OPEN', 1521542929000))).toBe(false);
  });

  it('adds a changed status or end time of a known event as a new version, each only once', () => {
    const index = new VersionIndex();
    expect(index.add(version('OPEN', 1521542929000))).toBe(true);
    expect(index.add(version('OPEN', 1521542989000))).toBe(true);
    expect(index.add(version('CLOSED', 1521542989000))).toBe(true);
    expect(index.add(version('OPEN', 1521542929000))).toBe(false);
    expect(index.add(version('OPEN', 1521542989000))).toBe(false);
    expect(index.add(version('CLOSED', 1521542989000))).toBe(false);
  });

  it('keeps the versions of different events apart', () => {
    const index = new VersionIndex();
    expect(index.add(version('OPEN', 1521542929000))).toBe(true);
    expect(index.add(version('OPEN', 1521542929000, '-5988376401319068441_1521042929000'))).toBe(true);
    expect(index.add(version('CLOSED', 1521542929000, '-5988376401319068441_1521042929000'))).toBe(true);
    expect(index.add(version('CLOSED', 1521542929000))).toBe(true);
  });

  it('tells an absent status or end time apart from present ones', () => {
    const index = new VersionIndex();
    expect(index.add(version(undefined, undefined))).toBe(true);
    expect(index.add(version('OPEN', undefined))).toBe(true);
    expect(index.add(version(undefined, 1521542929000))).toBe(true);
    expect(index.add(version(undefined, undefined))).toBe(false);
    expect(index.add(version('OPEN', undefined))).toBe(false);
  });
});
