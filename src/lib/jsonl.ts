import { createReadStream } from 'node:fs';

/** One line of a JSONL file; `offset` is the byte offset of its first byte, `number` counts from 1. */
export interface JsonlLine {
  readonly text: string;
  readonly number: number;
  readonly offset: number;
  /** False only for a last line with no trailing newline (an interrupted append or a hand edit). */
  readonly terminated: boolean;
}

export interface ReadLinesOptions {
  signal?: AbortSignal;
  highWaterMark?: number;
}

const NEWLINE = 0x0a;

/**
 * Streams the lines of a file in bounded memory (one chunk plus one partial line). Offsets are in bytes, so a
 * caller can truncate a file back to the end of its last complete line. Empty lines are yielded too (callers decide);
 * a `\r` before the newline is dropped.
 */
export async function* readLines(path: string, { signal, highWaterMark = 1 << 20 }: ReadLinesOptions = {}): AsyncGenerator<JsonlLine> {
  const stream = createReadStream(path, { highWaterMark, signal });
  let carry: Buffer | undefined;
  let carryOffset = 0;
  let number = 0;
  let position = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const buffer = carry ? Buffer.concat([carry, chunk]) : chunk;
    const bufferOffset = carry ? carryOffset : position;
    position += chunk.length;
    let start = 0;
    for (let nl = buffer.indexOf(NEWLINE, start); nl !== -1; nl = buffer.indexOf(NEWLINE, start)) {
      number++;
      yield { text: decodeLine(buffer, start, nl), number, offset: bufferOffset + start, terminated: true };
      start = nl + 1;
    }
    carry = start < buffer.length ? buffer.subarray(start) : undefined;
    carryOffset = bufferOffset + start;
  }
  if (carry && carry.length > 0) {
    number++;
    yield { text: decodeLine(carry, 0, carry.length), number, offset: carryOffset, terminated: false };
  }
}

function decodeLine(buffer: Buffer, start: number, end: number): string {
  const stop = end > start && buffer[end - 1] === 0x0d ? end - 1 : end;
  return buffer.toString('utf8', start, stop);
}

