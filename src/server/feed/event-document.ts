import { readFile, stat } from 'node:fs/promises';
import { readLines } from '../../lib/jsonl.js';
import { scanJsonPage, type PageShape } from '../../lib/json-page-scan.js';
import { splitArrayItems } from '../../lib/json-split.js';

/**
 * The largest file read whole to be tried as one events answer. A page of the real API holds at most a thousand
 * events (a few MB); a larger file is a JSONL export, streamed line by line, never held in memory. Read whole, a file
 * of tiny items costs up to 40 times its size (an object and a string each): 64 MiB of `[1,1,…]` took 2.6 GB.
 */
export const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

/** Only the raw text of each item of `events` is wanted: raw, so eventId digits past 2^53 survive as written. */
const ANSWER_SHAPE: PageShape = { members: [], items: 'events', itemMembers: [], itemTexts: [] };

/**
 * The raw text of each element of `events` when `file` holds one JSON object with an `events` array (an answer of
 * the events API, saved as it came, pretty-printed or not), or of each element of a file that is one JSON array;
 * undefined when it is anything else, to be read as JSONL.
 * A file is read whole only when it can be such a document: at most MAX_DOCUMENT_BYTES, starting with `{`, and its
 * first line not a whole value by itself unless that value has an `events` array (a JSONL file's first line is an
 * event, which has none).
 */
export async function eventDocumentItems(file: string): Promise<DocumentRecords | undefined> {
  const { size } = await stat(file);
  if (size > MAX_DOCUMENT_BYTES) return undefined;
  const first = await firstNonBlankLine(file);
  // `jq .events` of an answer: the array alone. No JSONL line is one (an event is an object).
  if (first?.text.trimStart().startsWith('[')) return itemsOf(arrayItems(await readFile(file, 'utf8')), '');
  if (!first?.text.trimStart().startsWith('{')) return undefined;
  const firstAlone = answerItems(first.text);
  if (firstAlone === null) return undefined;
  // A one-line answer that is the whole file is not read and scanned a second time.
  if (firstAlone !== undefined && first.alone) return itemsOf(firstAlone, 'events');
  const whole = await readFile(file, 'utf8');
  const items = answerItems(whole);
  // One object over several lines, not an answer (a pushed event, a push's response): read as the one record it is,
  // as it would be on one line, rather than as lines of JSONL that are each half of it.
  return items === null ? { kind: 'object', text: whole.trim() } : itemsOf(items, 'events');
}

/** The longest line a JSONL event can be: the real service refuses bodies over 1 MB. */
const EVENT_LINE_BYTES = 1024 * 1024;

/**
 * Why `file` is refused whole, when it is a document past MAX_DOCUMENT_BYTES (an answer, an array, a pretty-printed
 * object): read as JSONL, each of its lines was reported as a bad event, exit 3, and nothing said why. Undefined for
 * a JSONL file of that size, whose first line is one event: one too long for an event is reported as such (the lines
 * after it imported) unless it is the whole file, which is then a compact answer, as curl saves it.
 */
export async function oversizeDocument(file: string): Promise<string | undefined> {
  const { size } = await stat(file);
  if (size <= MAX_DOCUMENT_BYTES) return undefined;
  const [first, second] = await leadingLines(file, EVENT_LINE_BYTES, 2);
  if (first === undefined) return undefined;
  const document = first.tooLong ? second === undefined : opensDocument(first.text.trim(), second);
  if (!document) return undefined;
  return (
    `${file} is ${size} bytes and one JSON document: an events answer or array is read whole only up to ` +
    `${MAX_DOCUMENT_BYTES} bytes (${MAX_DOCUMENT_BYTES / (1024 * 1024)} MiB); write its events one per line first ` +
    `(jq -c '.events[]' of an answer, jq -c '.[]' of an array) and import that`
  );
}

/**
 * Whether a file starting so is one JSON value over many lines: `[` (no event is an array), or `{` on a line that is
 * not a whole value (`{`, `{"totalCount": 3,`, `{"events": [{…},`) followed by one that is not a whole object either.
 * A JSONL file's first line is a whole event; one broken by a hand edit is followed by whole events.
 */
function opensDocument(start: string, second: { text: string; tooLong: boolean } | undefined): boolean {
  if (start.startsWith('[')) return true;
  if (!start.startsWith('{') || isJsonValue(start)) return false;
  return second === undefined || second.tooLong || !isJsonValue(second.text.trim());
}

function isJsonValue(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** An answer's (or a bare array's) raw items, or one pretty-printed object to take as a single record. */
export type DocumentRecords =
  | { readonly kind: 'items'; readonly items: readonly string[]; readonly within: 'events' | '' }
  | { readonly kind: 'object'; readonly text: string };

function itemsOf(items: string[] | undefined, within: 'events' | ''): DocumentRecords | undefined {
  return items === undefined ? undefined : { kind: 'items', items, within };
}

/** The raw items of a file that is one JSON array; undefined when it is not one (read as JSONL, each line reported). */
function arrayItems(text: string): string[] | undefined {
  try {
    return splitArrayItems(text);
  } catch {
    return undefined;
  }
}

/** Items of an answer; null for a JSON value that is not one; undefined for text that is not one JSON value. */
function answerItems(text: string): string[] | null | undefined {
  try {
    return scanJsonPage(text.trim(), ANSWER_SHAPE).items?.map((item) => item.text) ?? null;
  } catch {
    // Not JSON, or JSON but not an object: either way not an answer.
    return undefined;
  }
}

/**
 * The first line with anything on it, and whether it is the only one. Told by reading on, not by its length: a line's
 * decoded text is not its bytes (each invalid UTF-8 byte decodes to three), and a line after it went unread, unreported.
 */
async function firstNonBlankLine(file: string): Promise<{ text: string; alone: boolean; tooLong: boolean } | undefined> {
  const [first, second] = await leadingLines(file, MAX_DOCUMENT_BYTES, 2);
  return first && { ...first, alone: second === undefined };
}

/** The first `count` lines with anything on them (a line past `maxLineBytes` counts, with no text). */
async function leadingLines(file: string, maxLineBytes: number, count: number): Promise<{ text: string; tooLong: boolean }[]> {
  const lines: { text: string; tooLong: boolean }[] = [];
  for await (const line of readLines(file, { maxLineBytes })) {
    const tooLong = line.tooLongBytes !== undefined;
    if (!tooLong && line.text.trim() === '') continue;
    lines.push({ text: line.text, tooLong });
    if (lines.length === count) break;
  }
  return lines;
}
