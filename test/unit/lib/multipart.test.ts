import { describe, expect, it } from 'vitest';
import { MultipartError, boundaryOf, readMultipart, type PartHeaders } from '../../../src/lib/multipart-read.js';
import { closingDelimiter, encodeMultipart, multipartContentType, newBoundary, partHead } from '../../../src/lib/multipart-write.js';

interface ReadPart extends PartHeaders {
  body: Buffer;
}

async function readAll(body: Buffer, boundary: string, chunkSize = body.length || 1): Promise<ReadPart[]> {
  const parts: ReadPart[] = [];
  async function* chunks(): AsyncGenerator<Buffer> {
    for (let at = 0; at < body.length; at += chunkSize) yield body.subarray(at, at + chunkSize);
  }
  await readMultipart(chunks(), boundary, (headers) => {
    const pieces: Buffer[] = [];
    return {
      write: (chunk) => void pieces.push(Buffer.from(chunk)),
      end: () => void parts.push({ ...headers, body: Buffer.concat(pieces) }),
    };
  });
  return parts;
}

describe('multipart writer: the layout Go\'s mime/multipart ReadForm reads', () => {
  it('writes a metadata value part (no filename) and a content file part (filename = the document name), byte for byte as Go\'s Writer', () => {
    const body = encodeMultipart('b0undary', [
      { name: 'metadata', contentType: 'application/json', body: '{"id":"x"}' },
      { name: 'content', filename: 'My "dash" \\ board', contentType: 'application/octet-stream', body: Buffer.from([0, 1, 2, 13, 10]) },
    ]);
    const expected = Buffer.concat([
      Buffer.from(
        '--b0undary\r\n' +
          'Content-Disposition: form-data; name="metadata"\r\n' +
          'Content-Type: application/json\r\n' +
          '\r\n' +
          '{"id":"x"}' +
          '\r\n--b0undary\r\n' +
          'Content-Disposition: form-data; name="content"; filename="My \\"dash\\" \\\\ board"\r\n' +
          'Content-Type: application/octet-stream\r\n' +
          '\r\n',
      ),
      Buffer.from([0, 1, 2, 13, 10]),
      Buffer.from('\r\n--b0undary--\r\n'),
    ]);
    expect(body).toEqual(expected);
  });

  it('percent-encodes CR and LF in a filename, which would otherwise end the header line', () => {
    expect(partHead('b', { name: 'content', filename: 'a\r\nb', contentType: 'text/plain' }, true).toString()).toContain('filename="a%0D%0Ab"\r\n');
  });

  it('makes Go-style boundaries (60 hex characters) and the Content-Type that names them', () => {
    const boundary = newBoundary();
    expect(boundary).toMatch(/^[0-9a-f]{60}$/);
    expect(multipartContentType(boundary)).toBe(`multipart/form-data; boundary=${boundary}`);
    expect(boundaryOf(multipartContentType(boundary))).toBe(boundary);
    expect(closingDelimiter(boundary).toString()).toBe(`\r\n--${boundary}--\r\n`);
  });

  it('never hands out the same boundary twice, across refills of its random pool', () => {
    const boundaries = Array.from({ length: 1000 }, () => newBoundary());
    expect(new Set(boundaries).size).toBe(boundaries.length);
    for (const boundary of boundaries) expect(boundary).toMatch(/^[0-9a-f]{60}$/);
  });
});

describe('multipart reader', () => {
  const boundary = 'XyZ-123';
  const content = Buffer.concat([Buffer.from('{"a":"\r\n--XyZ-12 not the boundary\r\n--XyZ-1234"}'), Buffer.from([0xff, 0x00, 0x0d])]);
  const body = encodeMultipart(boundary, [
    { name: 'name', contentType: 'text/plain', body: 'Ops ✓' },
    { name: 'content', filename: 'ops.json', contentType: 'application/json', body: content },
  ]);

  it('reads what the writer wrote, split at every possible chunk size', async () => {
    for (const size of [1, 2, 3, 7, 13, 64, body.length]) {
      const parts = await readAll(body, boundary, size);
      expect(parts.map(({ name, filename, contentType }) => ({ name, filename, contentType }))).toEqual([
        { name: 'name', filename: undefined, contentType: 'text/plain' },
        { name: 'content', filename: 'ops.json', contentType: 'application/json' },
      ]);
      expect(parts[0]?.body.toString()).toBe('Ops ✓');
      expect(parts[1]?.body).toEqual(content);
    }
  });

  it('skips a preamble and an epilogue, accepts blanks after a boundary, quoted boundaries and headers in any case', async () => {
    const text =
      'preamble\r\n--q b\r\n' +
      'content-disposition: form-data; name="type"\r\n\r\nnotebook\r\n--q b \t\r\n' +
      'CONTENT-DISPOSITION: form-data; name=content; filename="a \\"b\\".json"\r\ncontent-type: application/json\r\n\r\n{}\r\n--q b--\r\nepilogue';
    expect(boundaryOf('multipart/form-data; charset=utf-8; boundary="q b"')).toBe('q b');
    const parts = await readAll(Buffer.from(text), 'q b');
    expect(parts.map((p) => [p.name, p.filename, p.body.toString()])).toEqual([
      ['type', undefined, 'notebook'],
      ['content', 'a "b".json', '{}'],
    ]);
  });

  it('reads an empty part and a body whose first part has no CRLF before the boundary', async () => {
    const parts = await readAll(Buffer.from('--b\r\nContent-Disposition: form-data; name="description"\r\n\r\n\r\n--b--'), 'b');
    expect(parts).toEqual([{ name: 'description', filename: undefined, contentType: undefined, body: Buffer.alloc(0) }]);
  });

  const bad: Array<[string, string, RegExp]> = [
    ['no closing boundary', '--b\r\nContent-Disposition: form-data; name="a"\r\n\r\nx', /ends before its closing boundary/],
    ['no boundary at all', 'just text', /no part with the boundary/],
    ['no Content-Disposition', '--b\r\nContent-Type: text/plain\r\n\r\nx\r\n--b--', /no Content-Disposition/],
    ['not form-data', '--b\r\nContent-Disposition: attachment; name="a"\r\n\r\nx\r\n--b--', /must be form-data/],
    ['no name', '--b\r\nContent-Disposition: form-data; filename="a"\r\n\r\nx\r\n--b--', /has no name/],
    ['a header line without colon', '--b\r\nContent-Disposition: form-data; name="a"\r\nbogus\r\n\r\nx\r\n--b--', /malformed header line/],
    ['an unclosed quote', '--b\r\nContent-Disposition: form-data; name="a\r\n\r\nx\r\n--b--', /unclosed quoted string/],
    ['junk after a boundary', '--bjunk\r\nContent-Disposition: form-data; name="a"\r\n\r\nx\r\n--b--', /goes on with unexpected characters/],
    ['headers that never end', `--b\r\n${'X-Pad: y\r\n'.repeat(1000)}`, /headers exceed 8192 bytes/],
    ['headers over the limit that end within one chunk', `--b\r\nContent-Disposition: form-data; name="a"\r\n${'X-Pad: y\r\n'.repeat(1000)}\r\nx\r\n--b--`, /headers exceed 8192 bytes/],
  ];
  it.each(bad)('refuses %s with a MultipartError', async (_what, text, message) => {
    const reading = readAll(Buffer.from(text), 'b');
    await expect(reading).rejects.toThrow(MultipartError);
    await expect(readAll(Buffer.from(text), 'b')).rejects.toThrow(message);
  });

  it.each([
    [undefined, /not a body without Content-Type/],
    ['application/json', /must be multipart\/form-data, not 'application\/json'/],
    ['multipart/form-data', /needs a boundary/],
    [`multipart/form-data; boundary=${'x'.repeat(71)}`, /needs a boundary/],
    ['multipart/form-data; boundary', /parameter is malformed/],
  ])('boundaryOf(%s) refuses', (contentType, message) => {
    expect(() => boundaryOf(contentType)).toThrow(message);
  });
});
