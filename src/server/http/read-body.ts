import type { IncomingMessage } from 'node:http';
import { HttpError } from './http-error.js';
import { BODY_LIMIT_BYTES, MAX_JSON_DEPTH } from '../../schema/limits.js';
import { FORBIDDEN_KEYS, lineAndColumn, scanJson } from './json-scan.js';

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
 * Collects the body up to `limit` bytes. A declared Content-Length over the limit is refused before a byte is read;
 * a body that grows past it while streaming is refused at that point. Either way the rest is never read: the 413
 * carries `Connection: close` and the socket is dropped after the answer.
 */
export function readBodyBytes(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  if (declared > limit) return Promise.reject(tooLarge(limit));
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      req.off('error', onClose);
    };
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > limit) {
        cleanup();
        req.pause();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks, received));
    };
    // The client went away (or the request timeout fired) before the body was complete: nothing to answer.
    const onClose = (): void => {
      cleanup();
      reject(new HttpError(400, 'The request body ended before its declared length.'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
    req.on('error', onClose);
  });
}

function tooLarge(limit: number): HttpError {
  return new HttpError(413, `Request body larger than ${limit} bytes.`, undefined, { connection: 'close' });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** UTF-8 decode, then the iterative scan (depth, syntax, forbidden names), then JSON.parse, which cannot fail. */
export function parseJsonBytes(bytes: Uint8Array, maxDepth: number = MAX_JSON_DEPTH): unknown {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new HttpError(400, 'The request body is not valid UTF-8.');
  }
  return parseJsonText(text, maxDepth);
}

export function parseJsonText(text: string, maxDepth: number = MAX_JSON_DEPTH): unknown {
  if (text.trim() === '') throw new HttpError(400, 'The request body is empty: send a JSON document.');
  const fast = parseWithoutScan(text, maxDepth);
  if (fast.ok) return fast.value;
  const scan = scanJson(text, maxDepth);
  if (scan.ok) return JSON.parse(text) as unknown;
  if (scan.kind === 'forbidden-key') {
    throw HttpError.constraints(
      scan.paths.map((path) => ({
        path,
        message: 'Member name not allowed (__proto__, constructor and prototype are refused).',
        parameterLocation: 'PAYLOAD_BODY' as const,
        location: null,
      })),
    );
  }
  const { line, column } = lineAndColumn(text, scan.offset);
  const what = scan.kind === 'depth' ? 'JSON nested too deeply' : 'Malformed JSON';
  throw new HttpError(400, `${what} near line ${line} column ${column}: ${scan.message}.`);
}

/**
 * Nearly every body is a plain dashboard: one pass over its characters shows that no member can be named `__proto__`,
 * `constructor` or `prototype` (no string is spelled so, and no `\u` escape could spell one), bounds its depth, and
 * shows that no number can overflow to Infinity. Such a body goes straight to the native JSON.parse (about half the
 * full scan's cost); anything else — and every body JSON.parse refuses — takes the full scan, which gives the
 * precise answer.
 */
function parseWithoutScan(text: string, maxDepth: number): { ok: true; value: unknown } | { ok: false } {
  if (!plainText(text, maxDepth)) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/**
 * A number is surely finite when its exponent has at most 2 digits and all its digits together (mantissa, fraction
 * and exponent) number fewer than 200: it is then below 10^(198 + 99), far from the double range's 1.8e308. The
 * digits are counted over the whole number token, never per part: a 250-digit mantissa with `e99` overflows although
 * neither part alone looks large.
 */
const MAX_NUMBER_DIGITS = 200;
const MAX_EXPONENT_DIGITS = 2;
/** The lengths of the forbidden names: only strings this long are compared with them. */
const FORBIDDEN_LENGTHS = new Set([...FORBIDDEN_KEYS].map((name) => name.length));

/** False when the nesting exceeds `maxDepth`, a number could overflow, or a string could name a forbidden member. */
function plainText(text: string, maxDepth: number): boolean {
  let depth = 0;
  let numberDigits = 0;
  let exponentDigits = -1; // -1: not inside an exponent
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) {
      if (exponentDigits >= 0) exponentDigits++;
      if (++numberDigits >= MAX_NUMBER_DIGITS || exponentDigits > MAX_EXPONENT_DIGITS) return false;
      continue;
    }
    // `.`, `+`, `-` never end a number token; `e`/`E` starts its exponent (outside numbers it only occurs in
    // true/false, followed by a reset). Over-counting across invalid text is harmless: JSON.parse refuses it.
    if (c === 0x2e || c === 0x2b || c === 0x2d) continue;
    if (c === 0x65 || c === 0x45) {
      exponentDigits = 0;
      continue;
    }
    numberDigits = 0;
    exponentDigits = -1;
    if (c === 0x22) {
      const end = endOfPlainString(text, i);
      if (end === -1 || (FORBIDDEN_LENGTHS.has(end - i - 1) && FORBIDDEN_KEYS.has(text.slice(i + 1, end)))) return false;
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return false;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return true;
}

/**
 * Index of the quote closing the string that opens at `start`; -1 when there is none or the string holds a `\u`
 * escape. No other escape can spell a letter or `_`, so a forbidden name is only ever spelled out between the quotes.
 */
function endOfPlainString(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) {
      if (text.charCodeAt(i + 1) === 0x75) return -1;
      i++;
    } else if (c === 0x22) return i;
  }
  return -1;
}
