import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { comparedForm, fileComparedForm, sameDocumentContent } from '../../../src/documents/compared-form.js';
import { diffJson, jsonEqual } from '../../../src/plan/diff.js';
import { CORPUS_DOCUMENT_DASHBOARDS_DIR, CORPUS_NOTEBOOKS_DIR } from '../../helpers/corpus.js';

type Plain = Record<string, unknown>;

function corpus(dir: string): [string, Plain][] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => [name, JSON.parse(readFileSync(join(dir, name), 'utf8')) as Plain]);
}

/** The same value with every object's keys in reverse order: what a reformatted file parses to. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.keys(value).reverse().map((key) => [key, reversedKeys((value as Plain)[key])]));
}

const META = { kind: 'dashboard', name: 'Checkout' } as const;

describe('the compared form of documents', () => {
  it.each([...corpus(CORPUS_DOCUMENT_DASHBOARDS_DIR), ...corpus(CORPUS_NOTEBOOKS_DIR)])('%s compares equal with its keys reordered', (_, content) => {
    const kind = Array.isArray(content.sections) ? 'notebook' : 'dashboard';
    const form = comparedForm({ kind, name: 'x' }, content, []);
    expect(diffJson(form, comparedForm({ kind, name: 'x' }, reversedKeys(content) as Plain, [])).patch).toEqual([]);
    expect(form).toMatchObject({ document: { kind, name: 'x', isPrivate: false } });
  });

  it('ignores whitespace, YAML or JSON, key order and number formatting', () => {
    const json = `{"document":{"name":"Checkout","kind":"dashboard"},"version":21,
      "tiles":{"0":{"type":"markdown","content":"hi"}},
      "layouts":{"0":{"x":0.0,"y":0,"w":8.0,"h":4e0}}}`;
    const yaml = ['layouts:', '  "0": { h: 4, w: 8, y: 0, x: 0 }', 'tiles:', '  "0":', '    content: hi', '    type: markdown', 'version: 21', 'document: { kind: dashboard, name: Checkout }', ''].join('\n');
    const a = fileComparedForm(JSON.parse(json) as Plain, []);
    const b = fileComparedForm(parse(yaml) as Plain, []);
    expect(a).toEqual(b);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(JSON.stringify(a)).toBe(
      '{"document":{"isPrivate":false,"kind":"dashboard","name":"Checkout"},"layouts":{"0":{"h":4,"w":8,"x":0,"y":0}},"tiles":{"0":{"content":"hi","type":"markdown"}},"version":21}',
    );
  });

  it('shows a moved tile as a change to its layout only, never a removed and added tile', () => {
    const content = corpus(CORPUS_DOCUMENT_DASHBOARDS_DIR)[0]?.[1] ?? {};
    const moved = structuredClone(content) as { layouts: Record<string, { x: number; y: number }> };
    const [key] = Object.keys(moved.layouts);
    const layout = moved.layouts[key ?? ''];
    if (!layout) throw new Error('the corpus dashboard has no tile');
    layout.y += 40;
    const { patch } = diffJson(comparedForm(META, content, []), comparedForm(META, moved, []));
    expect(patch).toEqual([{ op: 'replace', path: `/layouts/${key}/y`, value: layout.y }]);
  });

  it('matches sections by id: an edit of one section and one inserted before it, not a cascade of replacements', () => {
    const section = (id: string, markdown: string): Plain => ({ id, type: 'markdown', markdown });
    const before = { version: '7', sections: [section('a', 'one'), section('b', 'two'), section('c', 'three')] };
    const after = { version: '7', sections: [section('a', 'one'), section('n', 'new'), section('b', 'TWO'), section('c', 'three')] };
    const notebook = { kind: 'notebook', name: 'n' } as const;
    expect(diffJson(comparedForm(notebook, before, []), comparedForm(notebook, after, [])).patch).toEqual([
      { op: 'add', path: '/sections/1', value: section('n', 'new') },
      { op: 'replace', path: '/sections/2/markdown', value: 'TWO' },
    ]);
  });

  it('compares the metadata the file sets (name, description, visibility), public and no description being the defaults', () => {
    const content = { version: 21, tiles: {}, layouts: {} };
    const form = comparedForm(META, content, []);
    expect(comparedForm({ ...META, isPrivate: false, description: '' }, content, [])).toEqual(form);
    expect(comparedForm({ ...META, description: null }, content, [])).toEqual(form);
    expect(diffJson(form, comparedForm({ ...META, name: 'Payments', isPrivate: true, description: 'why' }, content, [])).patch).toEqual([
      { op: 'add', path: '/document/description', value: 'why' },
      { op: 'replace', path: '/document/isPrivate', value: true },
      { op: 'replace', path: '/document/name', value: 'Payments' },
    ]);
    expect(diffJson(form, comparedForm({ kind: 'notebook', name: 'Checkout' }, content, [])).patch).toEqual([{ op: 'replace', path: '/document/kind', value: 'notebook' }]);
  });

  it('leaves out the id and dashcd: of a file, and keeps everything else the content holds (nulls and empty members too)', () => {
    const file = { document: { ...META, id: 'checkout', isPrivate: true }, dashcd: { environments: ['prod'] }, version: 21, tiles: {}, layouts: {}, settings: {}, extra: null };
    expect(fileComparedForm(file, [])).toEqual({
      document: { kind: 'dashboard', name: 'Checkout', isPrivate: true },
      extra: null,
      layouts: {},
      settings: {},
      tiles: {},
      version: 21,
    });
    expect(file.document).toEqual({ ...META, id: 'checkout', isPrivate: true });
  });

  it('applies ignore pointers (dashcd.yaml) to this form, skipping malformed ones', () => {
    const content = { version: 21, tiles: { '0': { type: 'markdown', content: 'x' } }, layouts: { '0': { x: 0, y: 0, w: 8, h: 4 } } };
    const moved = { ...content, layouts: { '0': { x: 8, y: 0, w: 8, h: 4 } } };
    expect(comparedForm(META, content, ['/layouts/*/x'])).toEqual(comparedForm(META, moved, ['/layouts/*/x']));
    // `~layouts` is no pointer (no leading /): read as one it would drop the layouts.
    expect(comparedForm(META, content, ['~layouts', 'layouts', ''])).toEqual(comparedForm(META, content, []));
    expect(jsonEqual(comparedForm(META, content, ['/layouts']), comparedForm(META, content, []))).toBe(false);
    expect(content.layouts['0']).toEqual({ x: 0, y: 0, w: 8, h: 4 });
  });

  it('keeps a __proto__ member of the content as a member', () => {
    const content = JSON.parse('{"version":21,"tiles":{},"layouts":{},"__proto__":{"x":1}}') as Plain;
    const form = comparedForm(META, content, []) as Plain;
    expect(Object.hasOwn(form, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(form)).toBe(Object.prototype);
  });
});

describe('a document exactly as apply wrote it', () => {
  const live = (content: Plain, block: Plain = {}): Plain => ({ document: { kind: 'dashboard', name: 'Checkout', isPrivate: false, version: 7, ...block }, ...content });
  const written = (content: Plain, block: Plain = {}): Plain => ({ document: { kind: 'dashboard', name: 'Checkout', ...block }, ...content });
  const [, dashboard] = corpus(CORPUS_DOCUMENT_DASHBOARDS_DIR)[0] ?? ['', {}];

  it('is unchanged without either form: same metadata (defaults, the version aside), same content in any key order, dashcd: aside', () => {
    expect(sameDocumentContent(live(dashboard), written(reversedKeys(dashboard) as Plain, { description: '' }))).toBe(true);
    expect(sameDocumentContent(live(dashboard, { description: 'd' }), { ...written(dashboard, { description: 'd', isPrivate: false }), dashcd: { environments: {} } })).toBe(true);
  });

  it('leaves to the forms anything else: a value, a member, the name, visibility or description', () => {
    const moved = { ...dashboard, layouts: { ...(dashboard.layouts as Plain), '0': { x: 1, y: 0, w: 8, h: 4 } } };
    expect(sameDocumentContent(live(dashboard), written(moved))).toBe(false);
    expect(sameDocumentContent(live(dashboard), written({ ...dashboard, extra: null }))).toBe(false);
    expect(sameDocumentContent(live(dashboard), written(dashboard, { name: 'Other' }))).toBe(false);
    expect(sameDocumentContent(live(dashboard), written(dashboard, { isPrivate: true }))).toBe(false);
    expect(sameDocumentContent(live(dashboard, { description: 'a' }), written(dashboard, { description: 'b' }))).toBe(false);
  });

  it.each([...corpus(CORPUS_DOCUMENT_DASHBOARDS_DIR), ...corpus(CORPUS_NOTEBOOKS_DIR)])('%s: same content means equal compared forms', (_, content) => {
    const kind = Array.isArray(content.sections) ? 'notebook' : 'dashboard';
    const a = live(content, { kind });
    const b = written(reversedKeys(content) as Plain, { kind });
    expect(sameDocumentContent(a, b)).toBe(true);
    expect(diffJson(fileComparedForm(a, ['/layouts']), fileComparedForm(b, ['/layouts'])).patch).toEqual([]);
  });
});
