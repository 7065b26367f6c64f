import fc from 'fast-check';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../../src/lib/logger.js';
import { scanEventLog, type ChunkSizes } from '../../../../src/server/feed/event-log.js';
import { encodeEvent } from '../../../../src/server/feed/event-record.js';
import { captureLog } from '../../../helpers/log-capture.js';
import { tempDirPerTest } from '../../../helpers/scratch.js';

const T0 = 1_700_000_000_000;

/** An event line of roughly `padding` bytes more than the bare prefix: long ones outgrow a chunk's carry room. */
function line(n: number, padding: number): string {
  const result = encodeEvent({ id: `${n}_${T0 + n}`, startTime: T0 + n, eventType: `TYPE_${n % 3}`, entityId: `HOST-${n % 5}`, title: 'x'.repeat(padding) });
  if (!result.ok) throw new Error(result.problems.join('; '));
  return result.event.text;
}

interface Seen {
  startTime: number;
  eventType: string;
  entityId: string | undefined;
  offset: number;
  text: string;
}

async function scanAll(path: string, sizes: ChunkSizes, from = { bytes: 0, lines: 0 }): Promise<{ seen: Seen[]; outcome: Awaited<ReturnType<typeof scanEventLog>> }> {
  const bytes = await readFile(path);
  const seen: Seen[] = [];
  const outcome = await scanEventLog(path, silentLogger(), (fields, span) => {
    seen.push({ startTime: fields.startTime, eventType: fields.eventType, entityId: fields.entityId, offset: span.offset, text: bytes.toString('utf8', span.offset, span.offset + span.length) });
  }, from, sizes);
  return { seen, outcome };
}

/** What a scan must find in `lines` written one per line: each line's fields at its own offset. */
function expected(lines: readonly string[]): Seen[] {
  let offset = 0;
  return lines.map((text, n) => {
    const found = { startTime: T0 + n, eventType: `TYPE_${n % 3}`, entityId: `HOST-${n % 5}`, offset, text };
    offset += Buffer.byteLength(text) + 1;
    return found;
  });
}

describe('event log scan', () => {
  let dir = '';
  tempDirPerTest('dashcd-log-scan-', (created) => (dir = created));

  it('finds every line at its offset whatever the chunk and carry room, lines longer than both included', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 600 }), { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 700 }),
        fc.integer({ min: 0, max: 300 }),
        async (paddings, chunk, carryRoom) => {
          const path = join(dir, `log-${run++}`);
          const lines = paddings.map((padding, n) => line(n, padding));
          await writeFile(path, lines.map((text) => `${text}\n`).join(''));
          const { seen, outcome } = await scanAll(path, { chunk, carryRoom });
          expect(seen).toEqual(expected(lines));
          expect(outcome).toMatchObject({ lines: lines.length, records: lines.length, damagedLines: 0, truncatedBytes: 0 });
          await rm(path);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('takes any bytes without throwing: every complete line is an event or a damaged line, the unfinished rest is cut', async () => {
    let run = 0;
    const pieces = fc.oneof(fc.uint8Array({ maxLength: 80 }), fc.constant(Uint8Array.from([0x0a])), fc.constant(Buffer.from(`${line(run, 5)}\n`)));
    await fc.assert(
      fc.asyncProperty(fc.array(pieces, { maxLength: 25 }), fc.integer({ min: 1, max: 90 }), fc.integer({ min: 0, max: 40 }), async (parts, chunk, carryRoom) => {
        const path = join(dir, `bytes-${run++}`);
        const bytes = Buffer.concat(parts);
        await writeFile(path, bytes);
        const outcome = await scanEventLog(path, silentLogger(), () => undefined, undefined, { chunk, carryRoom });
        const complete = bytes.lastIndexOf(0x0a) + 1;
        const lines = bytes.subarray(0, complete).toString('latin1').split('\n').slice(0, -1);
        expect(outcome.lines).toBe(lines.length);
        expect(outcome.records + outcome.damagedLines).toBe(lines.filter((text) => text.length > 0).length);
        expect(outcome).toMatchObject({ bytes: complete, truncatedBytes: bytes.length - complete });
        expect((await readFile(path)).length).toBe(complete);
      }),
      { numRuns: 150 },
    );
  });

  it('starts where it is told and counts lines on from there', async () => {
    const path = join(dir, 'from-middle');
    const lines = [0, 1, 2, 3, 4].map((n) => line(n, n * 90));
    await writeFile(path, lines.map((text) => `${text}\n`).join(''));
    const skipped = Buffer.byteLength(lines[0] ?? '') + 1 + Buffer.byteLength(lines[1] ?? '') + 1;
    const { seen, outcome } = await scanAll(path, { chunk: 64, carryRoom: 16 }, { bytes: skipped, lines: 2 });
    expect(seen.map((s) => s.startTime)).toEqual([T0 + 2, T0 + 3, T0 + 4]);
    expect(seen[0]?.offset).toBe(skipped);
    expect(outcome.lines).toBe(5);
  });

  it('skips a damaged line by its number and cuts off a torn last line across chunks', async () => {
    const path = join(dir, 'damaged');
    const lines = [line(0, 10), line(1, 400), 'not an event', line(3, 20)];
    const whole = lines.map((text) => `${text}\n`).join('');
    const torn = line(4, 500).slice(0, 300);
    await writeFile(path, whole + torn);
    const { lines: logged, log } = captureLog();
    const outcome = await scanEventLog(path, log, () => undefined, undefined, { chunk: 50, carryRoom: 40 });
    expect(outcome).toMatchObject({ lines: 4, records: 3, damagedLines: 1, truncatedBytes: 300, bytes: Buffer.byteLength(whole) });
    expect(logged).toContainEqual(expect.objectContaining({ msg: 'skipped a damaged event line', line: 3 }));
    expect(await readFile(path, 'utf8')).toBe(whole);
  });
});
