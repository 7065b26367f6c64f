import { describe, expect, it } from 'vitest';
import { readEventView, type ArchivedEventView } from '../../../src/archive/archived-event.js';
import { VersionIndex, versionCode } from '../../../src/archive/version-index.js';
import { COPIES_ONLY_BYTES, cutFields, heapHeldBy } from '../../helpers/held-heap.js';

/** The specification example event (SLOW_DISK on HOST-0000000000000007), with the status and end time given. */
function version(eventStatus: string | undefined, endTime: number | undefined, id = '5915682011263205071_1521042929000'): ArchivedEventView {
  return {
    ...readEventView(`{"id":"${id}","startTime":1521042929000,"entityId":"HOST-0000000000000007"}`),
    eventStatus,
    endTime,
  };
}

describe('VersionIndex', () => {
  it('keeps none of the page text an event’s id was cut from', () => {
    const index = new VersionIndex();
    const { held, kept } = heapHeldBy((i) => `-59883764013190${String(i).padStart(5, '0')}_1521042929000 `, (page) => index.add({ ...version('OPEN', 1), id: cutFields(page, 1)[0] as string }));
    expect(kept.every((added) => added === true)).toBe(true);
    expect(held).toBeLessThan(COPIES_ONLY_BYTES);
    expect(index.add(version('OPEN', 1, '-5988376401319000042_1521042929000'))).toBe(false);
  });

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

  it('takes an empty status for an absent one, as the version key does', () => {
    const index = new VersionIndex();
    expect(index.add(version(undefined, 1521542929000))).toBe(true);
    expect(index.add(version('', 1521542929000))).toBe(false);
    expect(index.add(version('', undefined))).toBe(true);
    expect(index.add(version(undefined, undefined))).toBe(false);
  });

  it('holds versions outside the documented shapes (other statuses, odd end times) once each, apart from the rest', () => {
    const index = new VersionIndex();
    const odd: Array<[string | undefined, number | undefined]> = [
      ['RESOLVED', 1521542929000],
      ['RESOLVED', undefined],
      ['OPEN', 1521542929000.5],
      ['OPEN', -1],
      ['OPEN', 2 ** 50 + 1],
      ['OPEN', 2 ** 50],
      ['OPEN', 0],
      [undefined, 0],
      ['CLOSED', 0],
    ];
    for (const [status, endTime] of odd) expect(index.add(version(status, endTime)), `${status}|${endTime}`).toBe(true);
    for (const [status, endTime] of odd) expect(index.add(version(status, endTime)), `${status}|${endTime}`).toBe(false);
  });
});

describe('versionCode', () => {
  it('gives each documented status and end time its own number, and the same number for the same version', () => {
    const codes = new Set<unknown>();
    for (const status of [undefined, 'OPEN', 'CLOSED']) {
      for (const endTime of [undefined, 0, 1, 1521542929000, 2 ** 50]) {
        const code = versionCode(status, endTime);
        expect(typeof code).toBe('number');
        expect(Number.isSafeInteger(code)).toBe(true);
        expect(versionCode(status, endTime)).toBe(code);
        codes.add(code);
      }
    }
    expect(codes.size).toBe(15);
  });

  it('writes any other version as its text, which no number equals', () => {
    expect(versionCode('RESOLVED', 1521542929000)).toBe('RESOLVED|1521542929000');
    expect(versionCode('RESOLVED', undefined)).toBe('RESOLVED|');
    expect(versionCode('OPEN', 1.5)).toBe('OPEN|1.5');
    expect(versionCode('OPEN', -1)).toBe('OPEN|-1');
    expect(versionCode(undefined, 2 ** 50 + 1)).toBe(`|${2 ** 50 + 1}`);
  });

  it('reads -0 as 0, as its text does', () => {
    expect(versionCode('OPEN', -0)).toBe(versionCode('OPEN', 0));
  });
});
