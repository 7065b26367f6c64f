import { createReadStream, openSync, readSync, closeSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { textsBytes, type LoggedPage, type LoggedPages } from '../baselines/bare-events-log.js';
import type { FigureContext } from '../lib/figure.js';

const HEAD = '{"events":[';
const ID_PREFIX = Buffer.from('{"id":"');
const NEWLINE = 0x0a;
const QUOTE = 0x22;

/**
 * The file `serveLoggedPages` starts on: for each request path, the page dashcd answered there, as the log spans of
 * its event texts between the page's head and tail. Each page is rebuilt from the log here and compared with dashcd's
 * bytes, so the baseline sends exactly what dashcd sent.
 */
export async function writeLoggedPages(ctx: FigureContext, bodies: Readonly<Record<string, Buffer>>, log: string): Promise<string> {
  const ids = Object.fromEntries(Object.entries(bodies).map(([path, body]) => [path, (JSON.parse(body.toString()) as { events: { id: string }[] }).events.map((e) => e.id)]));
  const wanted = new Set(Object.values(ids).flat());
  const spans = await spansOf(log, wanted);
  const pages: Record<string, LoggedPage> = {};
  const fd = openSync(log, 'r');
  try {
    for (const [path, body] of Object.entries(bodies)) {
      const pageSpans = (ids[path] ?? []).map((id) => {
        const span = spans.get(id);
        if (!span) throw new Error(`event ${id} of ${path} is not in ${log}`);
        return span;
      });
      const page: LoggedPage = { head: HEAD, tail: body.subarray(HEAD.length + textsBytes(pageSpans)).toString(), spans: pageSpans };
      if (!rebuilt(fd, page).equals(body)) throw new Error(`${path}: the page rebuilt from ${log} differs from dashcd's`);
      pages[path] = page;
    }
  } finally {
    closeSync(fd);
  }
  const file = join(ctx.workDir, 'logged-pages.json');
  const contents: LoggedPages = { log, pages };
  await writeFile(file, JSON.stringify(contents));
  return file;
}

/** Where the newest text of each wanted id lies in the log (a later line with the same id replaces an earlier one). */
async function spansOf(log: string, wanted: ReadonlySet<string>): Promise<Map<string, [number, number]>> {
  const found = new Map<string, [number, number]>();
  let carry: Buffer = Buffer.alloc(0);
  let base = 0;
  for await (const chunk of createReadStream(log, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    const bytes = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
    let start = 0;
    for (let end = bytes.indexOf(NEWLINE, start); end !== -1; end = bytes.indexOf(NEWLINE, start)) {
      if (bytes.subarray(start, start + ID_PREFIX.length).equals(ID_PREFIX)) {
        const idEnd = bytes.indexOf(QUOTE, start + ID_PREFIX.length);
        const id = bytes.toString('latin1', start + ID_PREFIX.length, idEnd);
        if (wanted.has(id)) found.set(id, [base + start, end - start]);
      }
      start = end + 1;
    }
    carry = bytes.subarray(start);
    base += start;
  }
  return found;
}

function rebuilt(fd: number, page: LoggedPage): Buffer {
  const texts = page.spans.map(([offset, length]) => {
    const text = Buffer.allocUnsafe(length);
    readSync(fd, text, 0, length, offset);
    return text;
  });
  return Buffer.concat([Buffer.from(page.head), ...texts.flatMap((text, i) => (i === 0 ? [text] : [Buffer.from(','), text])), Buffer.from(page.tail)]);
}
