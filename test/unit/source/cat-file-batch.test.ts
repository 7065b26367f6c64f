import { describe, expect, it } from 'vitest';
import { batchParser } from '../../../src/source/cat-file-batch.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(64);
const record = (oid: string, body: string): string => `${oid} blob ${Buffer.byteLength(body)}\n${body}\n`;

/** Feeds `text` cut at `cuts` (offsets) and collects what the parser hands over. */
async function parse(text: string, cuts: readonly number[]): Promise<{ blobs: [string, string][]; parser: ReturnType<typeof batchParser> }> {
  const blobs: [string, string][] = [];
  const parser = batchParser(async (oid, bytes) => void blobs.push([oid, bytes.toString('utf8')]));
  const bytes = Buffer.from(text);
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    await parser.push(bytes.subarray(from, cut));
    from = cut;
  }
  return { blobs, parser };
}

describe('batchParser: `git cat-file --batch` output, blob by blob', () => {
  const text = record(A, 'first\nwith a line break') + record(B, '') + record(A, 'é third, in UTF-8\n');
  const expected: [string, string][] = [
    [A, 'first\nwith a line break'],
    [B, ''],
    [A, 'é third, in UTF-8\n'],
  ];

  it('hands each blob over whole, in order, however the output is cut (at every offset)', async () => {
    const { blobs, parser } = await parse(text, []);
    expect(blobs).toEqual(expected);
    expect(parser.done(3)).toBe(true);
    for (let cut = 1; cut < Buffer.byteLength(text); cut++) {
      const split = await parse(text, [cut]);
      expect(split.blobs, `cut at ${cut}`).toEqual(expected);
      expect(split.parser.done(3)).toBe(true);
    }
  });

  it('takes the output a byte at a time', async () => {
    const { blobs, parser } = await parse(text, Array.from({ length: Buffer.byteLength(text) - 1 }, (_, i) => i + 1));
    expect(blobs).toEqual(expected);
    expect(parser.done(3)).toBe(true);
  });

  it('is not done before every blob asked for, nor with bytes left over, nor part-way through one', async () => {
    expect((await parse(record(A, 'x'), [])).parser.done(2)).toBe(false);
    expect((await parse(`${record(A, 'x')}${A} blob`, [])).parser.done(1)).toBe(false);
    const partial = await parse(`${A} blob 10\n12345`, []);
    expect(partial.blobs).toEqual([]);
    expect(partial.parser.done(0)).toBe(false);
  });

  it('refuses a line that is no blob header (a missing object, any other output), quoting at most 120 characters of it', async () => {
    await expect(parse(`${A} missing\n`, [])).rejects.toThrow(`git cat-file: unexpected "${A} missing"`);
    await expect(parse(`${A} tree 3\nabc\n`, [])).rejects.toThrow(/unexpected/);
    await expect(parse('\n', [])).rejects.toThrow('git cat-file: unexpected ""');
    await expect(parse(`warning ${A} blob 1\nx\n`, [])).rejects.toThrow(/unexpected "warning/);
    await expect(parse(`${A} blob 1 more\nx\n`, [])).rejects.toThrow(/unexpected ".* blob 1 more"/);
    await expect(parse(`${'z'.repeat(500)}\n`, [])).rejects.toThrow(`git cat-file: unexpected "${'z'.repeat(120)}"`);
  });
});
