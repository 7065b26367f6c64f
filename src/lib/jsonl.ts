import { createReadStream } from 'node:fs';

/** One line of a JSONL file; `offset` is the byte offset of its first byte, `number` counts from 1. */
export interface JsonlLine {
  /** '' for a line over the length limit, which is skipped unread. */
  readonly text: string;
  readonly number: number;
  readonly offset: number;
  /** False only for a last line with no trailing newline (an interrupted append or a hand edit). */
  readonly terminated: boolean;
  /** Set only for a line longer than the limit: its length in bytes (without its newline). */
  readonly tooLongBytes?: number;
}

/**
 * The longest line read, in bytes. Far above any event: the embedded feed takes events of at most 1 MiB (its
 * request body limit, and `events import`'s line limit), and the archive writes each event as the feed returned it.
 * It keeps a damaged file's line (a 560 MB run of bytes without a newline) from growing past what a string can
 * hold (V8: 2^29 - 24 characters), which failed a whole query.
 */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

export interface ReadLinesOptions {
  signal?: AbortSignal;
  highWaterMark?: number;
  maxLineBytes?: number;
}

/**
 * Streams the lines of a file in bounded memory (one chunk plus one line of at most `maxLineBytes`). Offsets are in
 * bytes, so a caller can truncate a file back to the end of its last complete line. Empty lines are yielded too
 * (callers decide); a `\r` before the newline is dropped. A longer line is yielded with `tooLongBytes` and no text.
 */
export async function* readLines(path: string, { signal, highWaterMark = 1 << 20, maxLineBytes = MAX_LINE_BYTES }: ReadLinesOptions = {}): AsyncGenerator<JsonlLine> {
  const splitter = createLineSplitter(maxLineBytes);
  for await (const chunk of createReadStream(path, { highWaterMark, signal }) as AsyncIterable<Buffer>) yield* splitter.push(chunk);
  const last = splitter.end();
  if (last) yield last;
}

export interface LineSplitter {
  /** The lines `chunk` completes, in order; what follows its last newline waits for the next chunk. */
  push(chunk: Buffer): JsonlLine[];
  /** The last line, when the input did not end with a newline. */
  end(): JsonlLine | undefined;
  /** Bytes of the pending line held: at most `maxLineBytes`, and none once it is known to be longer. */
  held(): number;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * Splits a byte stream, chunk by chunk, into lines. A line spanning chunks is kept as a list of its pieces and
 * joined once at its newline, so each byte is copied once however many chunks the line spans (joining at every
 * chunk took 20 s for a 200 MB line). Once a line passes `maxLineBytes` its pieces are dropped and the rest of it is
 * only counted, up to its newline.
 */
export function createLineSplitter(maxLineBytes: number): LineSplitter {
  let pieces: Buffer[] = [];
  /** Bytes of the pending line so far, held in `pieces` unless it is already too long. */
  let pending = 0;
  let lineOffset = 0;
  let number = 0;

  /** The pending line's bytes ending with `last`, in one buffer. */
  const joined = (last: Buffer, bytes: number): Buffer =>
    // Stryker disable next-line ConditionalExpression: speed only; a line within one chunk is decoded where it lies, uncopied.
    pieces.length === 0 ? last : Buffer.concat([...pieces, last], bytes);

  const finish = (last: Buffer, terminated: boolean): JsonlLine => {
    const bytes = pending + last.length;
    number++;
    const place = { number, offset: lineOffset, terminated };
    const line = bytes > maxLineBytes ? { text: '', ...place, tooLongBytes: bytes } : { text: decodeLine(joined(last, bytes)), ...place };
    // Past its newline; an unterminated line is the last, so nothing reads the offset after it.
    lineOffset += bytes + 1;
    pieces = [];
    pending = 0;
    return line;
  };

  return {
    push(chunk) {
      const lines: JsonlLine[] = [];
      let start = 0;
      for (let nl = chunk.indexOf(NEWLINE); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
        lines.push(finish(chunk.subarray(start, nl), true));
        start = nl + 1;
      }
      const rest = chunk.length - start;
      pending += rest;
      if (pending > maxLineBytes) pieces = [];
      else pieces.push(chunk.subarray(start));
      return lines;
    },
    end: () => (pending > 0 ? finish(Buffer.alloc(0), false) : undefined),
    held: () => pieces.reduce((sum, piece) => sum + piece.length, 0),
  };
}

function decodeLine(line: Buffer): string {
  const end = line[line.length - 1] === CARRIAGE_RETURN ? line.length - 1 : line.length;
  return line.toString('utf8', 0, end);
}
