import { randomFillSync } from 'node:crypto';

/**
 * Writes `multipart/form-data` framing exactly as Go's `mime/multipart.Writer` does, the reader Monaco and Terraform
 * use: the first part opens with `--boundary\r\n`, every later one with `\r\n--boundary\r\n`, headers
 * `Content-Disposition` then `Content-Type` (Go sorts them by name), a blank line, the bytes; the body closes with
 * `\r\n--boundary--\r\n`. A part without a filename is a form value to Go's ReadForm, one with a filename a file.
 */

export interface PartSpec {
  readonly name: string;
  readonly filename?: string;
  readonly contentType: string;
}

const BOUNDARY_BYTES = 30;
/** Random bytes drawn 128 boundaries at a time: one draw per boundary was a tenth of a document GET's CPU. */
const boundaryPool = Buffer.alloc(BOUNDARY_BYTES * 128);
let boundaryPoolUsed = boundaryPool.length;

/**
 * 30 random bytes in hex, as Go's randomBoundary: never found inside the parts in practice. Each comes from a
 * cryptographic source and is used once, so a document's author can no more predict the next boundary (and forge
 * a part inside another answer) than with a draw per call.
 */
export function newBoundary(): string {
  if (boundaryPoolUsed === boundaryPool.length) {
    randomFillSync(boundaryPool);
    boundaryPoolUsed = 0;
  }
  const boundary = boundaryPool.toString('hex', boundaryPoolUsed, boundaryPoolUsed + BOUNDARY_BYTES);
  boundaryPoolUsed += BOUNDARY_BYTES;
  return boundary;
}

export function multipartContentType(boundary: string): string {
  return `multipart/form-data; boundary=${boundary}`;
}

/** The delimiter line and headers that go before a part's bytes; `first` for the body's first part. */
export function partHead(boundary: string, part: PartSpec, first: boolean): string {
  const filename = part.filename === undefined ? '' : `; filename="${quote(part.filename)}"`;
  return (
    `${first ? '' : '\r\n'}--${boundary}\r\n` +
    `Content-Disposition: form-data; name="${quote(part.name)}"${filename}\r\n` +
    `Content-Type: ${part.contentType}\r\n\r\n`
  );
}

/** The closing delimiter after the last part's bytes. */
export function closingDelimiter(boundary: string): string {
  return `\r\n--${boundary}--\r\n`;
}

/** A whole body from parts held in memory (the client's uploads, tests). */
export function encodeMultipart(boundary: string, parts: ReadonlyArray<PartSpec & { readonly body: Uint8Array | string }>): Buffer {
  const pieces: Buffer[] = [];
  parts.forEach((part, index) => {
    pieces.push(Buffer.from(partHead(boundary, part, index === 0)), Buffer.from(part.body));
  });
  pieces.push(Buffer.from(closingDelimiter(boundary)));
  return Buffer.concat(pieces);
}

const NEEDS_QUOTING = /[\\"\r\n]/;

/**
 * A header parameter value: Go escapes `\` and `"` with a backslash (and its reader undoes that); a CR or LF would
 * end the header line, so they are percent-encoded as browsers do.
 */
function quote(value: string): string {
  // Most names need nothing: three replace passes over each were 2 % of a document GET's CPU (profile).
  if (!NEEDS_QUOTING.test(value)) return value;
  return value.replace(/[\\"]/g, '\\$&').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
