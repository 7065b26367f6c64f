/**
 * A streaming reader of `multipart/form-data` bodies (RFC 7578 over RFC 2046): each part's bytes go to a sink as
 * they arrive, so a 50 MB file part never sits in memory whole. Only the framing is checked here; what the parts
 * mean is the caller's business.
 */

export interface PartHeaders {
  /** The `name` of `Content-Disposition: form-data; name=…`. */
  readonly name: string;
  readonly filename: string | undefined;
  /** The part's own `Content-Type`, as sent; undefined when it has none. */
  readonly contentType: string | undefined;
}

export interface PartSink {
  write(chunk: Buffer): void | Promise<void>;
  end(): void | Promise<void>;
}

/** Malformed framing or headers; the message says what (a 400 for the sender). */
export class MultipartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MultipartError';
  }
}

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');
const MAX_HEADER_BYTES = 8 * 1024;
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;

/** The boundary of a `multipart/form-data` Content-Type; throws MultipartError for any other type or a bad boundary. */
export function boundaryOf(contentType: string | undefined): string {
  const [type = '', ...params] = (contentType ?? '').split(';');
  if (type.trim().toLowerCase() !== 'multipart/form-data') {
    throw new MultipartError(`The body must be multipart/form-data, not ${contentType ? `'${contentType}'` : 'a body without Content-Type'}.`);
  }
  const raw = parameters(params.join(';')).get('boundary');
  if (raw === undefined || !BOUNDARY.test(raw)) throw new MultipartError('The multipart/form-data Content-Type needs a boundary of 1 to 70 allowed characters.');
  return raw;
}

/**
 * Reads every part of `source`, handing each one's bytes to the sink `onPart` returns for its headers. Awaits each
 * sink write, so a slow disk slows the reading rather than filling memory. Throws MultipartError for bad framing,
 * including a body that ends before its closing boundary.
 */
export async function readMultipart(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, boundary: string, onPart: (headers: PartHeaders) => PartSink): Promise<void> {
  // The first delimiter may open the body without a CRLF before it: one is put in front so every delimiter looks alike.
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  let buffer: Buffer = CRLF;
  // Asserted, not annotated: `step` changes it, which TypeScript's narrowing of the loop below cannot see.
  let state = 'preamble' as 'preamble' | 'after-delimiter' | 'headers' | 'body' | 'done';
  let sink: PartSink | undefined;

  const step = async (): Promise<boolean> => {
    switch (state) {
      case 'preamble': {
        const at = buffer.indexOf(delimiter);
        if (at === -1) {
          buffer = buffer.subarray(Math.max(0, buffer.length - delimiter.length + 1));
          return false;
        }
        buffer = buffer.subarray(at + delimiter.length);
        state = 'after-delimiter';
        return true;
      }
      case 'after-delimiter': {
        // `--` closes the body; else optional blanks (RFC 2046's transport padding) and a CRLF start a part.
        if (buffer.length < 2) return false;
        if (buffer[0] === 0x2d && buffer[1] === 0x2d) {
          state = 'done';
          return false;
        }
        const lineEnd = buffer.indexOf(CRLF);
        if (lineEnd === -1) {
          if (buffer.length > 256) throw new MultipartError('A multipart boundary line goes on with unexpected characters.');
          return false;
        }
        if (!/^[ \t]*$/.test(buffer.toString('latin1', 0, lineEnd))) throw new MultipartError('A multipart boundary line goes on with unexpected characters.');
        buffer = buffer.subarray(lineEnd + 2);
        state = 'headers';
        return true;
      }
      case 'headers': {
        // A part without headers starts its body at once (the blank line follows the boundary line directly).
        const end = buffer.subarray(0, 2).equals(CRLF) ? -2 : buffer.indexOf(HEADER_END);
        // Checked whether or not they ended: a chunk (up to 64 kB) may bring headers and their end at once.
        if ((end === -1 ? buffer.length : end) > MAX_HEADER_BYTES) throw new MultipartError(`A multipart part's headers exceed ${MAX_HEADER_BYTES} bytes.`);
        if (end === -1) return false;
        sink = onPart(parsePartHeaders(end === -2 ? '' : buffer.toString('utf8', 0, end)));
        buffer = buffer.subarray(end + 4);
        state = 'body';
        return true;
      }
      case 'body': {
        const at = delimiterIn(buffer, delimiter);
        const current = sink as PartSink;
        if (at === -1) {
          // A delimiter may be split across chunks, and the byte after it decides whether it is one.
          const keep = delimiter.length;
          if (buffer.length > keep) {
            await current.write(buffer.subarray(0, buffer.length - keep));
            buffer = buffer.subarray(buffer.length - keep);
          }
          return false;
        }
        if (at > 0) await current.write(buffer.subarray(0, at));
        await current.end();
        sink = undefined;
        buffer = buffer.subarray(at + delimiter.length);
        state = 'after-delimiter';
        return true;
      }
      case 'done':
        return false;
    }
  };

  for await (const chunk of source) {
    if (state === 'done') continue;
    buffer = buffer.length === 0 ? Buffer.from(chunk) : Buffer.concat([buffer, chunk]);
    while (await step());
  }
  if (state !== 'done') {
    throw new MultipartError(state === 'preamble' ? 'The multipart body has no part with the boundary its Content-Type names.' : 'The multipart body ends before its closing boundary.');
  }
}

/**
 * Where the next delimiter starts in a part's bytes, -1 if none is certain yet. Like Go's reader, `\r\n--boundary`
 * followed by anything but `-`, a blank or a CR is the part's data, not a delimiter.
 */
function delimiterIn(buffer: Buffer, delimiter: Buffer): number {
  for (let from = 0; ; ) {
    const at = buffer.indexOf(delimiter, from);
    if (at === -1) return -1;
    const after = buffer[at + delimiter.length];
    if (after === undefined) return -1;
    if (after === 0x2d || after === 0x20 || after === 0x09 || after === 0x0d) return at;
    from = at + 1;
  }
}

/** `Content-Disposition` and `Content-Type` of one part; other headers are ignored. */
export function parsePartHeaders(text: string): PartHeaders {
  const headers = new Map<string, string>();
  for (const line of text.split('\r\n')) {
    if (line === '') continue;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new MultipartError(`A multipart part has a malformed header line: '${line.slice(0, 80)}'.`);
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const disposition = headers.get('content-disposition');
  if (disposition === undefined) throw new MultipartError('A multipart part has no Content-Disposition header.');
  const [kind = '', ...rest] = splitParameters(disposition);
  if (kind.trim().toLowerCase() !== 'form-data') throw new MultipartError(`A multipart part's Content-Disposition must be form-data, not '${kind.trim()}'.`);
  const params = parameters(rest.join(';'));
  const name = params.get('name');
  if (name === undefined || name === '') throw new MultipartError('A multipart part\'s Content-Disposition has no name.');
  return { name, filename: params.get('filename'), contentType: headers.get('content-type') };
}

/** Splits on `;` outside quoted strings. */
function splitParameters(text: string): string[] {
  const pieces: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (quoted && char === '\\' && i + 1 < text.length) {
      current += char + (text[i + 1] as string);
      i += 1;
      continue;
    }
    if (char === '"') quoted = !quoted;
    if (char === ';' && !quoted) {
      pieces.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  if (quoted) throw new MultipartError('A multipart header has an unclosed quoted string.');
  pieces.push(current);
  return pieces;
}

/** `a=b; c="d \"e\""` → lowercase names to values, quotes and backslash escapes removed. */
function parameters(text: string): Map<string, string> {
  const params = new Map<string, string>();
  for (const piece of splitParameters(text)) {
    if (piece.trim() === '') continue;
    const equals = piece.indexOf('=');
    if (equals <= 0) throw new MultipartError(`A multipart header parameter is malformed: '${piece.trim().slice(0, 80)}'.`);
    const value = piece.slice(equals + 1).trim();
    params.set(piece.slice(0, equals).trim().toLowerCase(), value.startsWith('"') && value.endsWith('"') && value.length >= 2 ? value.slice(1, -1).replace(/\\(.)/g, '$1') : value);
  }
  return params;
}
