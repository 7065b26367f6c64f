import type { IncomingMessage } from 'node:http';
import { collectBody } from '../../lib/collect-body.js';
import { HttpError } from './http-error.js';
import { BODY_LIMIT_BYTES, MAX_JSON_DEPTH } from '../../schema/limits.js';
import { lineAndColumn, scanJson } from './json-guard.js';
import { scanPlainJson, type CanonicalText } from './plain-json.js';

export { BODY_LIMIT_BYTES, MAX_JSON_DEPTH };

export interface ReadJsonOptions {
  readonly limit?: number;
  readonly maxDepth?: number;
}

/** Reads, guards and parses a JSON request body. Every refusal is an HttpError (400, 413 or 415). */
export async function readJsonBody(
  req: IncomingMessage,
  { limit = BODY_LIMIT_BYTES, maxDepth = MAX_JSON_DEPTH }: ReadJsonOptions = {},
): Promise<unknown> {
  return parseJsonBytes(await readJsonBytes(req, limit), maxDepth);
}

/** A JSON request body's bytes, unparsed: the media type and size are checked (415, 413, 400 when cut short). */
export function readJsonBytes(req: IncomingMessage, limit: number = BODY_LIMIT_BYTES): Promise<Buffer> {
  checkJsonContentType(req.headers['content-type']);
  return readBodyBytes(req, limit);
}

/** 415 unless the media type is application/json (a charset parameter, if any, must be UTF-8). */
export function checkJsonContentType(header: string | undefined): void {
  const [media = '', ...params] = (header ?? '').split(';').map((part) => part.trim().toLowerCase());
  const charset = params.find((param) => param.startsWith('charset='))?.slice('charset='.length).replace(/"/g, '');
  if (media === 'application/json' && (charset === undefined || charset === 'utf-8' || charset === 'utf8')) return;
  const shown = header === undefined ? 'none' : `'${header.slice(0, 100)}'`;
  throw new HttpError(415, `Unsupported content type ${shown}: send the body as application/json (UTF-8).`);
}

/**
 * Collects the body up to `limit` bytes (collect-body.ts): a declared Content-Length over the limit is refused before
 * a byte is read, a body that grows past it while streaming at that point. Either way the rest is never read: the
 * 413 carries `Connection: close` and the socket is dropped after the answer.
 */
export async function readBodyBytes(req: IncomingMessage, limit: number): Promise<Buffer> {
  const body = await collectBody(req, { limit });
  if (body.ok) return body.bytes;
  if (body.why === 'too-large') throw bodyTooLarge(limit);
  // Gone: with neither a budget nor a deadline, the only other refusal. Nobody is left to read this answer.
  throw new HttpError(400, 'The request body ended before its declared length.');
}

/** 413, closing the connection: the rest of the body is never read. */
export function bodyTooLarge(limit: number): HttpError {
  return new HttpError(413, `Request body larger than ${limit} bytes.`, undefined, { connection: 'close' });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** UTF-8 decode, then the iterative scan (depth, syntax, forbidden names), then JSON.parse, which cannot fail. */
export function parseJsonBytes(bytes: Uint8Array, maxDepth: number = MAX_JSON_DEPTH): unknown {
  return parseJsonText(decodeJsonBytes(bytes), maxDepth);
}

export function decodeJsonBytes(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new HttpError(400, 'The request body is not valid UTF-8.');
  }
}

export function parseJsonText(text: string, maxDepth: number = MAX_JSON_DEPTH): unknown {
  return parseJsonDocument(text, maxDepth).value;
}

/**
 * The parsed value and, when the text is exactly what JSON.stringify writes for it (plain-json.ts), the text with
 * where its members lie: a caller storing the value can then slice the text instead of serialising it again.
 */
export function parseJsonDocument(text: string, maxDepth: number = MAX_JSON_DEPTH): { value: unknown; canonical: CanonicalText | undefined } {
  if (text.trim() === '') throw new HttpError(400, 'The request body is empty: send a JSON document.');
  const fast = parseWithoutScan(text, maxDepth);
  if (fast.ok) return fast;
  const scan = scanJson(text, maxDepth);
  if (scan.ok) return { value: JSON.parse(text) as unknown, canonical: undefined };
  if (scan.kind === 'forbidden-key') {
    throw HttpError.constraints(
      scan.paths.map((path) => ({
        path,
        message: 'Member name not allowed (__proto__, constructor and prototype are refused).',
        parameterLocation: 'PAYLOAD_BODY' as const,
        location: null,
      })),
      scan.count,
    );
  }
  const { line, column } = lineAndColumn(text, scan.offset);
  const what = scan.kind === 'depth' ? 'JSON nested too deeply' : 'Malformed JSON';
  throw new HttpError(400, `${what} near line ${line} column ${column}: ${scan.message}.`);
}

/**
 * Nearly every body is plain (plain-json.ts): one pass over its characters shows it safe for the native JSON.parse
 * (about half the full scan's cost). Anything else — and every body JSON.parse refuses — takes the full scan, which
 * gives the precise answer.
 */
function parseWithoutScan(text: string, maxDepth: number): { ok: true; value: unknown; canonical: CanonicalText | undefined } | { ok: false } {
  const scan = scanPlainJson(text, maxDepth);
  if (!scan.plain) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) as unknown, canonical: scan.layout && { text, layout: scan.layout } };
  } catch {
    return { ok: false };
  }
}
