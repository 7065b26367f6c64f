import { describe, expect, it } from 'vitest';
import { documentWrite, liveDocumentBody } from '../../../src/documents/live-form.js';
import type { DocumentMetadata } from '../../../src/schema/documents.js';

function metadata(overrides: Partial<DocumentMetadata> = {}): DocumentMetadata {
  return {
    id: 'checkout',
    name: 'Checkout',
    type: 'dashboard',
    version: 4,
    owner: 'u',
    isPrivate: false,
    modificationInfo: { createdBy: 'u', createdTime: 't', lastModifiedBy: 'u', lastModifiedTime: 't' },
    access: ['read'],
    ...overrides,
  };
}

describe('liveDocumentBody: a live document in the file form', () => {
  it('puts document: first (type as kind, name, description, isPrivate, the version read), then the content as stored', () => {
    const body = liveDocumentBody(metadata({ description: 'About [managed-by:dashcd]', isPrivate: true }), Buffer.from('{"version":21,"tiles":{"1":{}},"layouts":{}}'));
    expect(body).toEqual({ document: { kind: 'dashboard', name: 'Checkout', description: 'About [managed-by:dashcd]', isPrivate: true, version: 4 }, version: 21, tiles: { '1': {} }, layouts: {} });
    expect(Object.keys(body)).toEqual(['document', 'version', 'tiles', 'layouts']);
    expect(Object.keys(body.document)).toEqual(['kind', 'name', 'description', 'isPrivate', 'version']);
  });

  it('leaves an empty description out, and reads text content too', () => {
    expect(liveDocumentBody(metadata({ type: 'notebook', description: '' }), '{"sections":[]}').document).toEqual({ kind: 'notebook', name: 'Checkout', isPrivate: false, version: 4 });
  });

  it('refuses, naming the document, what the file form cannot hold', () => {
    expect(() => liveDocumentBody(metadata({ type: 'launchpad' }), '{}')).toThrow('document checkout is a "launchpad", not a dashboard or notebook');
    expect(() => liveDocumentBody(metadata(), 'not json')).toThrow("document checkout's content is not JSON");
    expect(() => liveDocumentBody(metadata(), '[1]')).toThrow("document checkout's content is not a JSON object");
    expect(() => liveDocumentBody(metadata(), 'null')).toThrow("document checkout's content is not a JSON object");
    expect(() => liveDocumentBody(metadata(), '"text"')).toThrow("document checkout's content is not a JSON object");
    expect(() => liveDocumentBody(metadata(), '{"document":{}}')).toThrow('top-level "document" member');
    expect(() => liveDocumentBody(metadata(), `{"x":${'['.repeat(70)}${']'.repeat(70)}}`)).toThrow("document checkout's content nests deeper than 64 levels, more than a dashcd file may");
    expect(liveDocumentBody(metadata(), `{"x":${'['.repeat(60)}${']'.repeat(60)}}`).x).toBeDefined();
  });
});

describe('documentWrite: what a write sends', () => {
  it('splits the metadata parts from the content, public by default', () => {
    expect(documentWrite({ document: { kind: 'notebook', name: 'Triage' }, version: '7', sections: [] })).toEqual({
      name: 'Triage',
      type: 'notebook',
      description: undefined,
      isPrivate: false,
      content: '{"version":"7","sections":[]}',
    });
    expect(documentWrite({ document: { kind: 'dashboard', name: 'C', description: 'd', isPrivate: true }, tiles: {} })).toMatchObject({ description: 'd', isPrivate: true, content: '{"tiles":{}}' });
  });
});
