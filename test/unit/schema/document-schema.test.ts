import { describe, expect, it } from 'vitest';
import {
  CustomDocumentId,
  DocumentDescription,
  DocumentMetadata,
  DocumentName,
  DocumentType,
  PlatformErrorEnvelope,
  isDocumentId,
  platformErrorEnvelope,
} from '../../../src/schema/documents.js';

describe('document ids', () => {
  it('a custom id is letters, digits and dashes, at most 100 characters, and not a UUID (though it may contain one)', () => {
    for (const ok of ['my-dash', 'A', 'x'.repeat(100), 'monaco-0b4e3c5a-1d2f-4a6b-8c9d-0e1f2a3b4c5d', '0b4e3c5a1d2f4a6b8c9d0e1f2a3b4c5d']) {
      expect(CustomDocumentId.safeParse(ok).success, ok).toBe(true);
    }
    const refused: Array<[string, RegExp]> = [
      ['x'.repeat(101), /at most 100/],
      ['my_dash', /letters, digits and dashes/],
      ['../etc', /letters, digits and dashes/],
      ['a.b', /letters, digits and dashes/],
      ['', /letters, digits and dashes/],
      ['0b4e3c5a-1d2f-4a6b-8c9d-0e1f2a3b4c5d', /must not be a UUID/],
      ['0B4E3C5A-1D2F-4A6B-8C9D-0E1F2A3B4C5D', /must not be a UUID/],
    ];
    for (const [id, message] of refused) {
      const parsed = CustomDocumentId.safeParse(id);
      expect(parsed.success, id).toBe(false);
      expect(parsed.error?.issues.map((issue) => issue.message).join(' ')).toMatch(message);
    }
  });

  it('isDocumentId admits generated UUIDs and custom ids, and nothing that could leave a directory', () => {
    expect(isDocumentId('0b4e3c5a-1d2f-4a6b-8c9d-0e1f2a3b4c5d')).toBe(true);
    expect(isDocumentId('my-dash')).toBe(true);
    for (const bad of ['', '..', 'a/b', 'a%2Fb', 'x'.repeat(101), 'a b']) expect(isDocumentId(bad), bad).toBe(false);
  });
});

describe('document metadata limits', () => {
  it('name and type are 1 to 128 characters, the description at most 256', () => {
    expect(DocumentName.safeParse('n'.repeat(128)).success).toBe(true);
    expect(DocumentName.safeParse('n'.repeat(129)).success).toBe(false);
    expect(DocumentName.safeParse('').success).toBe(false);
    expect(DocumentType.safeParse('t'.repeat(128)).success).toBe(true);
    expect(DocumentType.safeParse('t'.repeat(129)).success).toBe(false);
    expect(DocumentDescription.safeParse('d'.repeat(256)).success).toBe(true);
    expect(DocumentDescription.safeParse('d'.repeat(257)).success).toBe(false);
  });

  it('reads version as a number whether the service sends a number (real responses) or a string (the SDK typing)', () => {
    const base = {
      id: 'a',
      name: 'n',
      type: 'dashboard',
      owner: 'o',
      isPrivate: true,
      modificationInfo: { createdBy: 'o', createdTime: 't', lastModifiedBy: 'o', lastModifiedTime: 't' },
      access: ['read'],
      originAppId: null,
    };
    expect(DocumentMetadata.parse({ ...base, version: 3 }).version).toBe(3);
    expect(DocumentMetadata.parse({ ...base, version: '4' }).version).toBe(4);
  });
});

describe('the platform error envelope', () => {
  it('is {"error":{"code","message","details":{"errorRef"}}}', () => {
    const envelope = platformErrorEnvelope(409, 'Version mismatch', 'ref-1');
    expect(JSON.parse(JSON.stringify(envelope))).toEqual({ error: { code: 409, message: 'Version mismatch', details: { errorRef: 'ref-1' } } });
    expect(PlatformErrorEnvelope.safeParse({ error: { code: 403, message: 'Forbidden', details: { errorRef: 'x' } } }).success).toBe(true);
  });
});
