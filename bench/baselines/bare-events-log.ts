import { createServer } from 'node:http';
import { openSync, readSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { listen, type ServedBaseline } from './bare-http.js';

/** One page as the bare server rebuilds it: the bytes before and after its event texts, and where each text lies. */
export interface LoggedPage {
  readonly head: string;
  readonly tail: string;
  /** [offset, length] of each event text in the log, in the page's order. */
  readonly spans: ReadonlyArray<readonly [number, number]>;
}

/** What `serveLoggedPages` is started on: the events log and, by request path, the pages. */
export interface LoggedPages {
  readonly log: string;
  readonly pages: Readonly<Record<string, LoggedPage>>;
}

/** Texts this close in the log are read together, as dashcd's reader does (src/server/feed/span-reader.ts). */
const MERGE_GAP = 16 * 1024;
const MAX_RUN = 256 * 1024;
const COMMA = 0x2c;

/**
 * The events-page baseline doing dashcd's I/O: node:http answering each page with its event texts read from the
 * events log by positioned reads (texts within 16 kB of each other in one read, as dashcd), between the page's own
 * head and tail bytes — no index, no query, no cursor, no token check. Bodies come from a pool, each back once its
 * answer is written, so the baseline pays no buffer allocation per page (nor the collections it would bring).
 */
export async function serveLoggedPages(pagesFile: string): Promise<ServedBaseline> {
  const { log, pages } = JSON.parse(await readFile(pagesFile, 'utf8')) as LoggedPages;
  const fd = openSync(log, 'r');
  const scratch = Buffer.allocUnsafe(MAX_RUN);
  const pool: Buffer[] = [];
  const server = createServer((req, res) => {
    const page = pages[req.url ?? ''];
    if (!page) {
      res.writeHead(404).end();
      return;
    }
    const size = Buffer.byteLength(page.head) + Buffer.byteLength(page.tail) + textsBytes(page.spans);
    const taken = pool.pop();
    const body = taken && taken.length >= size ? taken : Buffer.allocUnsafe(Math.max(size, 1 << 20));
    let at = body.write(page.head);
    const places = page.spans.map(([, length]) => {
      const place = at;
      at += length + 1;
      return place;
    });
    readSpans(fd, page.spans, body, places, scratch);
    for (let i = 0; i < places.length - 1; i++) body[(places[i] ?? 0) + (page.spans[i]?.[1] ?? 0)] = COMMA;
    body.write(page.tail, at - (places.length > 0 ? 1 : 0));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': size });
    res.once('finish', () => pool.push(body));
    res.end(body.subarray(0, size));
  });
  return listen(server);
}

/** The texts one comma apart. */
export function textsBytes(spans: LoggedPage['spans']): number {
  return spans.length === 0 ? 0 : spans.reduce((sum, [, length]) => sum + length + 1, 0) - 1;
}

/** Reads each span's text to `body` at its place: runs of near neighbours in one read through `scratch`. */
function readSpans(fd: number, spans: LoggedPage['spans'], body: Buffer, places: readonly number[], scratch: Buffer): void {
  const order = spans.map((_, i) => i).sort((a, b) => (spans[a]?.[0] ?? 0) - (spans[b]?.[0] ?? 0));
  for (let i = 0; i < order.length; ) {
    const first = spans[order[i] ?? 0] as readonly [number, number];
    let last = i;
    let end = first[0] + first[1];
    for (; last + 1 < order.length; last++) {
      const [offset, length] = spans[order[last + 1] ?? 0] as readonly [number, number];
      if (offset - end > MERGE_GAP || offset + length - first[0] > MAX_RUN) break;
      end = offset + length;
    }
    readFully(fd, scratch, end - first[0], first[0]);
    for (let k = i; k <= last; k++) {
      const index = order[k] ?? 0;
      const [offset, length] = spans[index] as readonly [number, number];
      scratch.copy(body, places[index] ?? 0, offset - first[0], offset - first[0] + length);
    }
    i = last + 1;
  }
}

function readFully(fd: number, buffer: Buffer, length: number, position: number): void {
  for (let done = 0; done < length; ) {
    const read = readSync(fd, buffer, done, length - done, position + done);
    if (read === 0) throw new Error(`the events log ended at ${position + done}, before a page's text`);
    done += read;
  }
}
