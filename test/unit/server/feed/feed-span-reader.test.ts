import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileHandle } from 'node:fs/promises';
import type { LogSpan } from '../../../../src/server/feed/span-reader.js';
import { SPAN_SCRATCH_BYTES, SpanReader } from '../../../../src/server/feed/span-reader.js';

/** A log of lines of very different lengths, so runs are dense, sparse, merged or split at the scratch size. */
const LINE_LENGTHS = Array.from({ length: 400 }, (_, i) => (i % 37 === 0 ? 70_000 + i : 1 + ((i * 7919) % 900)));

describe('SpanReader', () => {
  let dir: string;
  let handle: FileHandle;
  let content: Buffer;
  const lines: LogSpan[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dashcd-span-reader-'));
    let offset = 0;
    const parts = LINE_LENGTHS.map((length, i) => {
      lines.push({ offset, length });
      offset += length + 1;
      return `${String.fromCharCode(97 + (i % 26)).repeat(length)}\n`;
    });
    content = Buffer.from(parts.join(''));
    await writeFile(join(dir, 'log'), content);
    handle = await open(join(dir, 'log'), 'r');
  });

  afterAll(async () => {
    await handle.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('returns each span as the file holds it, in the order asked, for any choice and order of lines', () => {
    const reader = new SpanReader(() => handle.fd, 'log');
    const pick = fc.array(fc.nat({ max: LINE_LENGTHS.length - 1 }), { maxLength: 200 });
    fc.assert(
      fc.property(pick, fc.constantFrom('asked', 'ascending', 'descending'), (picked, sort) => {
        const indexes = sort === 'asked' ? picked : [...picked].sort((a, b) => (sort === 'ascending' ? a - b : b - a));
        const spans = indexes.map((i) => lines[i] as LogSpan);
        const texts = reader.read(spans);
        expect(texts.map((t) => t.toString())).toEqual(spans.map((s) => content.subarray(s.offset, s.offset + s.length).toString()));
      }),
      { numRuns: 300 },
    );
  });

  it('puts each span at the place asked for (texts one byte apart, in any order) and writes nothing outside them', () => {
    const reader = new SpanReader(() => handle.fd, 'log');
    const pick = fc.array(fc.nat({ max: LINE_LENGTHS.length - 1 }), { maxLength: 200 });
    fc.assert(
      fc.property(pick, fc.constantFrom('asked', 'ascending', 'descending'), fc.nat({ max: 5 }), fc.boolean(), (picked, sort, head, roomAfter) => {
        const indexes = sort === 'asked' ? picked : [...picked].sort((a, b) => (sort === 'ascending' ? a - b : b - a));
        const spans = indexes.map((i) => lines[i] as LogSpan);
        let at = head;
        const places = spans.map((span) => (at += span.length + 1) - span.length - 1);
        // With room after the body (two bytes on) the reads use it as their scratch instead of a buffer of their own.
        const body = Buffer.alloc(at + 2 + (roomAfter ? SPAN_SCRATCH_BYTES : 0), '#');
        reader.readInto(spans, body, places, roomAfter ? at + 2 : undefined);
        spans.forEach((span, i) => {
          const place = places[i] ?? 0;
          expect(body.subarray(place, place + span.length).toString()).toBe(content.subarray(span.offset, span.offset + span.length).toString());
        });
        // Before the first place and past the last text's spare byte the body is as it was.
        expect(body.subarray(0, head).toString() + body.subarray(at, at + 2).toString()).toBe('#'.repeat(head + 2));
      }),
      { numRuns: 300 },
    );
  });

  it('reads part of a line and a span past the end of the file as an error, not as short text', () => {
    const reader = new SpanReader(() => handle.fd, 'log');
    const [inner] = reader.read([{ offset: 1, length: 3 }]);
    expect(inner?.toString()).toBe(content.subarray(1, 4).toString());
    expect(() => reader.read([{ offset: content.length - 1, length: 10 }])).toThrow(/shorter than its index expects/);
  });
});
