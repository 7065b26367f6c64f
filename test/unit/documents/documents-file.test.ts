import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { checkDocumentFile, checkDocumentSource } from '../../../src/desired/document-check.js';
import { comparedForm, fileComparedForm } from '../../../src/documents/compared-form.js';
import { detectFileKind } from '../../../src/desired/detect-kind.js';
import { fastParseYaml } from '../../../src/desired/fast-yaml/fast-parse.js';
import { documentFileValue, documentFileYaml, splitDocumentFile, type DocumentFileMetadata } from '../../../src/documents/document-file.js';
import { CORPUS_DOCUMENT_DASHBOARDS_DIR, CORPUS_NOTEBOOKS_DIR } from '../../helpers/corpus.js';

type Plain = Record<string, unknown>;

const documents = [CORPUS_DOCUMENT_DASHBOARDS_DIR, CORPUS_NOTEBOOKS_DIR].flatMap((dir) =>
  readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .map((name): [string, Plain] => [name, JSON.parse(readFileSync(join(dir, name), 'utf8')) as Plain]),
);

const metadataOf = (content: Plain, extra: Partial<DocumentFileMetadata> = {}): DocumentFileMetadata => ({
  kind: Array.isArray(content.sections) ? 'notebook' : 'dashboard',
  id: 'a5c1e0f2-3d4b-4c5a-9e8f-7a6b5c4d3e2f',
  name: 'Checkout: errors & "latency"',
  isPrivate: false,
  ...extra,
});

/**
 * A file's value as plan reads it (src/desired/check-source.ts): the fast parser's, or yaml's where the fast parser
 * declines (a few of the corpus files). Where the fast parser answers, its value is yaml's (its property test against
 * yaml pins that); yaml alone took about 2.4 s over the corpus, most of it on the three 2 MB notebooks.
 */
function readAsPlanDoes(text: string): unknown {
  const fast = fastParseYaml(text);
  return fast.ok ? fast.value : parse(text);
}

describe('the file pull writes', () => {
  it.each(documents)('%s: valid, of its kind, and unchanged to plan (content and metadata round-trip)', (_, content) => {
    const metadata = metadataOf(content, { description: 'from the app', isPrivate: true });
    const text = documentFileYaml(metadata, content) ?? '';
    const file = readAsPlanDoes(text) as Plain;
    const kind = detectFileKind(file);
    expect(kind.kind).toBe(metadata.kind === 'notebook' ? 'notebook' : 'platform-dashboard');
    expect(checkDocumentFile(file, metadata.kind)).toEqual({ problems: [], warnings: [] });
    const { block, content: read } = splitDocumentFile(file);
    expect(read).toStrictEqual(content);
    expect(Object.keys(read)).toEqual(Object.keys(content));
    expect(block).toEqual({ kind: metadata.kind, id: metadata.id, name: metadata.name, description: 'from the app', isPrivate: true });
    expect(fileComparedForm(file, [])).toEqual(comparedForm(metadata, content, []));
  });

  it('puts document: first with kind, id and name, description only when there is one, isPrivate only when true', () => {
    const content = { version: '7', sections: [] };
    const value = documentFileValue(metadataOf(content, { description: '' }), content);
    expect(value).toEqual({ document: { kind: 'notebook', id: 'a5c1e0f2-3d4b-4c5a-9e8f-7a6b5c4d3e2f', name: 'Checkout: errors & "latency"' }, version: '7', sections: [] });
    expect(Object.keys(value ?? {})).toEqual(['document', 'version', 'sections']);
    expect(documentFileYaml({ kind: 'notebook', id: 'nb-1', name: 'Notes', isPrivate: false }, content)).toBe(
      ['document:', '  kind: notebook', '  id: nb-1', '  name: Notes', 'version: "7"', 'sections: []', ''].join('\n'),
    );
  });

  it('writes text that checkDocumentSource accepts without a warning', () => {
    const [, content = {}] = documents[0] ?? [];
    const text = documentFileYaml(metadataOf(content), content) ?? '';
    expect(checkDocumentSource(text)).toEqual({ problems: [], warnings: [], value: parse(text) });
  });

  it('writes an object the content holds twice out twice, never as an anchor and alias', () => {
    const settings = { value: { from: 'now()-2h', to: 'now()' }, enabled: true };
    const content = { version: 21, tiles: {}, layouts: {}, settings: { defaultTimeframe: settings }, copy: settings };
    const text = documentFileYaml(metadataOf(content, { name: 'Copies' }), content) ?? '';
    expect(text).not.toMatch(/[&*]/);
    expect(parse(text)).toMatchObject({ copy: settings, settings: { defaultTimeframe: settings } });
  });

  it('refuses a content with its own top-level document or dashcd member, which the file form cannot hold', () => {
    const metadata = metadataOf({});
    expect(documentFileValue(metadata, { version: 21, tiles: {}, layouts: {}, document: 1 })).toBeUndefined();
    expect(documentFileYaml(metadata, { version: 21, tiles: {}, layouts: {}, dashcd: {} })).toBeUndefined();
  });

  it('splits a file into document:, dashcd: and the content in file order, a __proto__ member kept as one', () => {
    const file = JSON.parse('{"version":21,"document":{"kind":"dashboard"},"__proto__":{"x":1},"dashcd":{"environments":["dev"]},"tiles":{}}') as Plain;
    const { block, dashcd, content } = splitDocumentFile(file);
    expect(block).toEqual({ kind: 'dashboard' });
    expect(dashcd).toEqual({ environments: ['dev'] });
    expect(Object.keys(content)).toEqual(['version', '__proto__', 'tiles']);
    expect(Object.getPrototypeOf(content)).toBe(Object.prototype);
  });
});
