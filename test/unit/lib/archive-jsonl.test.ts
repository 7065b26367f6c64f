import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLines, type JsonlLine } from '../../../src/lib/jsonl.js';
import { tempDirPerTest } from '../../helpers/scratch.js';

let dir: string;
tempDirPerTest('dashcd-jsonl-', (created) => (dir = created));

async function lines(content: string | Buffer, highWaterMark?: number): Promise<JsonlLine[]> {
  const file = join(dir, 'f.jsonl');
  await writeFile(file, content);
  const out: JsonlLine[] = [];
  for await (const line of readLines(file, highWaterMark ? { highWaterMark } : {})) out.push(line);
  return out;
}

describe('readLines', () => {
  it('gives byte offsets and line numbers across chunk boundaries and multi-byte characters', async () => {
    const text = '{"k":"ü✓𝄞"}\n{"k":"plain"}\r\n\n{"k":"last"}\n';
    for (const highWaterMark of [1, 3, 7, 1 << 16]) {
      const got = await lines(text, highWaterMark);
      expect(got.map((l) => l.text)).toEqual(['{"k":"ü✓𝄞"}', '{"k":"plain"}', '', '{"k":"last"}']);
      expect(got.map((l) => l.number)).toEqual([1, 2, 3, 4]);
      expect(got.map((l) => l.offset)).toEqual([0, 18, 33, 34]);
      expect(got.every((l) => l.terminated)).toBe(true);
    }
  });

  it('marks a last line without a newline as unterminated, at its byte offset', async () => {
    const got = await lines('{"a":1}\n{"a":', 4);
    expect(got.at(-1)).toEqual({ text: '{"a":', number: 2, offset: 8, terminated: false });
  });

  it('yields nothing for an empty file', async () => {
    expect(await lines('')).toEqual([]);
  });
});
