import { describe, expect, it } from 'vitest';
import { servedContentType } from '../../../../src/server/documents/document-form.js';

describe('servedContentType', () => {
  it('serves a stored media type as it was named, parameters and all', () => {
    expect(servedContentType('application/json')).toBe('application/json');
    expect(servedContentType('text/html; charset=utf-8')).toBe('text/html; charset=utf-8');
    expect(servedContentType('application/x.dt+json;\tprofile="a b"')).toBe('application/x.dt+json;\tprofile="a b"');
  });

  it('serves one no header may carry (stored before uploads were checked) as octet-stream, never a 500', () => {
    for (const stored of ['application/json; x="€"', 'text/plain; a=b\r\nSet-Cookie: x', 'text/plain; \u0000', 'json', '']) {
      expect(servedContentType(stored), JSON.stringify(stored)).toBe('application/octet-stream');
    }
  });
});
