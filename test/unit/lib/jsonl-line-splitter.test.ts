import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLineSplitter, MAX_LINE_BYTES, readLines, type JsonlLine } from '../../../src/lib/jsonl.js';
import { tempDirPerTest } from '../../helpers/scratch.js';

/** Every line the splitter gives for `chunks`, pushed in order, then the end. */
function split(chunks: readonly (string | Buffer)[], maxLineBytes = 1000): JsonlLine[] {
  const splitter = createLineSplitter(maxLineBytes);
  const lines = chunks.flatMap((chunk) => splitter.push(Buffer.from(chunk)));
  const last = splitter.end();
  return last ? [...lines, last] : lines;
}

describe('createLineSplitter', () => {
  it('gives each line of a chunk with its number and byte offset, and nothing at the end after a newline', () => {
    expect(split(['a\nbc\n'])).toEqual([
      { text: 'a', number: 1, offset: 0, terminated: true },
      { text: 'bc', number: 2, offset: 2, terminated: true },
    ]);
  });

  it('joins a line that spans chunks, and gives a last line without a newline as unterminated', () => {
    expect(split(['ab', 'c', '', 'd\ne', 'f'])).toEqual([
      { text: 'abcd', number: 1, offset: 0, terminated: true },
      { text: 'ef', number: 2, offset: 5, terminated: false },
    ]);
  });

  it('gives nothing for no input, or for only empty chunks', () => {
    expect(split([])).toEqual([]);
    expect(split(['', ''])).toEqual([]);
  });

  it('gives empty lines, and drops a \\r only where it stands before the newline', () => {
    expect(split(['x\r\n\n\r\na\rb\n']).map((l) => [l.text, l.offset])).toEqual([
      ['x', 0],
      ['', 3],
      ['', 4],
      ['a\rb', 6],
    ]);
  });

  it('drops a \\r before the newline when a chunk ends between them', () => {
    expect(split(['x\r', '\ny\r', '\r', '\n']).map((l) => l.text)).toEqual(['x', 'y\r']);
  });

  it('decodes a character whose bytes fall in two chunks', () => {
    const bytes = Buffer.from('{"k":"ü"}\n');
    expect(split([bytes.subarray(0, 7), bytes.subarray(7)])).toEqual([{ text: '{"k":"ü"}', number: 1, offset: 0, terminated: true }]);
  });

  it('reads a line of exactly maxLineBytes, within a chunk or across chunks', () => {
    expect(split(['abcd\n'], 4)).toEqual([{ text: 'abcd', number: 1, offset: 0, terminated: true }]);
    expect(split(['ab', 'cd', '\n'], 4)).toEqual([{ text: 'abcd', number: 1, offset: 0, terminated: true }]);
    expect(split(['ab', 'cd'], 4)).toEqual([{ text: 'abcd', number: 1, offset: 0, terminated: false }]);
  });

  it('gives a longer line unread, with its length, and goes on with the next line at the right place', () => {
    expect(split(['ok\nabcde\nnext\n'], 4)).toEqual([
      { text: 'ok', number: 1, offset: 0, terminated: true },
      { text: '', number: 2, offset: 3, terminated: true, tooLongBytes: 5 },
      { text: 'next', number: 3, offset: 9, terminated: true },
    ]);
  });

  it('counts a too-long line across chunks up to its newline, the \\r included', () => {
    expect(split(['x\nab', 'cd', 'ef', 'g\r\nok\n'], 4)).toEqual([
      { text: 'x', number: 1, offset: 0, terminated: true },
      { text: '', number: 2, offset: 2, terminated: true, tooLongBytes: 8 },
      { text: 'ok', number: 3, offset: 11, terminated: true },
    ]);
  });

  it('gives a too-long last line without a newline as unterminated, at its offset', () => {
    expect(split(['a\nbcdef', 'gh'], 4)).toEqual([
      { text: 'a', number: 1, offset: 0, terminated: true },
      { text: '', number: 2, offset: 2, terminated: false, tooLongBytes: 7 },
    ]);
  });

  it('holds a pending line up to maxLineBytes, then nothing of it until its newline', () => {
    const splitter = createLineSplitter(4);
    splitter.push(Buffer.from('x\nab'));
    expect(splitter.held()).toBe(2);
    splitter.push(Buffer.from('cd'));
    expect(splitter.held()).toBe(4);
    splitter.push(Buffer.from('e'));
    expect(splitter.held()).toBe(0);
    splitter.push(Buffer.from('f'));
    expect(splitter.held()).toBe(0);
    expect(splitter.push(Buffer.from('\nyz'))).toEqual([{ text: '', number: 2, offset: 2, terminated: true, tooLongBytes: 6 }]);
    expect(splitter.held()).toBe(2);
    expect(splitter.push(Buffer.from('\n'))).toEqual([{ text: 'yz', number: 3, offset: 9, terminated: true }]);
    expect(splitter.held()).toBe(0);
  });
});

describe('readLines', () => {
  let dir: string;
  tempDirPerTest('dashcd-jsonl-long-', (created) => (dir = created));
  afterEach(() => vi.restoreAllMocks());

  async function readAll(content: string, options: { highWaterMark?: number; maxLineBytes?: number }): Promise<JsonlLine[]> {
    const file = join(dir, 'f.jsonl');
    await writeFile(file, content);
    const out: JsonlLine[] = [];
    for await (const line of readLines(file, options)) out.push(line);
    return out;
  }

  it('limits a line to 16 MiB unless told otherwise', () => {
    expect(MAX_LINE_BYTES).toBe(16_777_216);
  });

  it('skips a line over maxLineBytes, reporting its length, and reads on', async () => {
    expect(await readAll(`{"a":1}\n${'x'.repeat(50)}\n{"a":2}`, { highWaterMark: 7, maxLineBytes: 10 })).toEqual([
      { text: '{"a":1}', number: 1, offset: 0, terminated: true },
      { text: '', number: 2, offset: 8, terminated: true, tooLongBytes: 50 },
      { text: '{"a":2}', number: 3, offset: 59, terminated: false },
    ]);
  });

  it('copies the bytes of a line that spans many chunks once, when it ends', async () => {
    const concat = vi.spyOn(Buffer, 'concat');
    const lines = await readAll(`${'y'.repeat(3000)}\n`, { highWaterMark: 10 });
    expect(lines.map((l) => l.text.length)).toEqual([3000]);
    // Joining the pending line to every chunk copies ~450,000 bytes for these 300 chunks.
    expect(concat.mock.results.reduce((sum, result) => sum + (result.value as Buffer).length, 0)).toBe(3000);
  });
});
