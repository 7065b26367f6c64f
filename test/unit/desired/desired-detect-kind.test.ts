import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFileKind, isDocumentShaped, NOT_A_DOCUMENT } from '../../../src/desired/detect-kind.js';
import { CORPUS_DASHBOARDS_DIR, CORPUS_DOCUMENT_DASHBOARDS_DIR, CORPUS_NOTEBOOKS_DIR } from '../../helpers/corpus.js';

function corpus(dir: string): [string, Record<string, unknown>][] {
  const files = readdirSync(dir).filter((name) => name.endsWith('.json'));
  return files.map((name) => [name, JSON.parse(readFileSync(join(dir, name), 'utf8')) as Record<string, unknown>]);
}

const classic = corpus(CORPUS_DASHBOARDS_DIR);
const dashboards = corpus(CORPUS_DOCUMENT_DASHBOARDS_DIR);
const notebooks = corpus(CORPUS_NOTEBOOKS_DIR);

describe('detectFileKind over the corpus', () => {
  it('finds the whole corpus (47 classic, 56 platform dashboards, 18 notebooks)', () => {
    expect([classic.length, dashboards.length, notebooks.length]).toEqual([47, 56, 18]);
  });

  it.each(classic)('classic %s is a classic dashboard', (_, value) => {
    expect(detectFileKind(value)).toEqual({ kind: 'classic-dashboard' });
  });

  const downloads = [
    ...dashboards.map(([name, content]) => [name, content, 'dashboard', 'platform-dashboard', "a platform dashboard's content (tiles and layouts maps)"] as const),
    ...notebooks.map(([name, content]) => [name, content, 'notebook', 'notebook', "a notebook's content (sections)"] as const),
  ];

  it.each(downloads)('%s: with document: it is of its kind; as downloaded, the reason says what to add', (_, content, kind, detected, what) => {
    expect(detectFileKind({ document: { kind, name: 'x' }, ...content })).toEqual({ kind: detected });
    expect(detectFileKind(content)).toEqual({
      kind: 'unknown',
      reason: `${what} without the document: member dashcd needs; add document: { kind: ${kind}, name: … }`,
      path: [],
    });
  });

  it.each(dashboards.slice(0, 3))('refuses %s under kind: notebook, saying which kind the content is', (_, content) => {
    expect(detectFileKind({ document: { kind: 'notebook', name: 'x' }, ...content })).toEqual({
      kind: 'unknown',
      reason: "kind is notebook, but the file holds a platform dashboard's content (tiles and layouts maps); say kind: dashboard",
      path: ['document', 'kind'],
    });
  });

  it.each(notebooks.slice(0, 3))('refuses %s under kind: dashboard', (_, content) => {
    expect(detectFileKind({ document: { kind: 'dashboard', name: 'x' }, ...content })).toMatchObject({ kind: 'unknown', path: ['document', 'kind'] });
  });
});

describe('detectFileKind', () => {
  it('takes dashboardMetadata, or a tiles list alone, as a classic dashboard', () => {
    expect(detectFileKind({ dashboardMetadata: {} })).toEqual({ kind: 'classic-dashboard' });
    expect(detectFileKind({ tiles: [] })).toEqual({ kind: 'classic-dashboard' });
  });

  it('takes tiles or layouts as a map for a platform dashboard\'s content', () => {
    expect(detectFileKind({ layouts: {} })).toMatchObject({ kind: 'unknown', reason: expect.stringContaining('kind: dashboard') });
    expect(detectFileKind({ tiles: {} })).toMatchObject({ kind: 'unknown', reason: expect.stringContaining('kind: dashboard') });
    expect(detectFileKind({ sections: {} })).toEqual({ kind: 'unknown', reason: NOT_A_DOCUMENT, path: [] });
  });

  it('trusts document.kind when the content does not contradict it (an empty file of either kind)', () => {
    expect(detectFileKind({ document: { kind: 'dashboard' } })).toEqual({ kind: 'platform-dashboard' });
    expect(detectFileKind({ document: { kind: 'notebook' } })).toEqual({ kind: 'notebook' });
    expect(detectFileKind({ document: { kind: 'dashboard' }, dashboardMetadata: {}, tiles: {} })).toEqual({ kind: 'platform-dashboard' });
  });

  it('names a classic dashboard given document: at document:, with what to do (it met the document schema\'s raw complaints)', () => {
    const reason = 'the file holds a classic dashboard (dashboardMetadata, a list of tiles); remove document:, which only platform dashboards and notebooks carry';
    for (const value of [{ document: { kind: 'dashboard', name: 'x' }, dashboardMetadata: { name: 'x' }, tiles: [] }, { document: { kind: 'notebook' }, tiles: [{}] }, { document: { kind: 'dashboard' }, dashboardMetadata: {} }]) {
      expect(detectFileKind(value), JSON.stringify(value)).toEqual({ kind: 'unknown', reason, path: ['document'] });
    }
  });

  it('refuses anything but a mapping, naming the file as a whole', () => {
    for (const value of [null, 'text', 3, [], [{ tiles: [] }]]) {
      expect(detectFileKind(value)).toEqual({ kind: 'unknown', reason: `${NOT_A_DOCUMENT} (the file does not hold a mapping)`, path: [] });
    }
    expect(detectFileKind({ name: 'x' })).toEqual({ kind: 'unknown', reason: NOT_A_DOCUMENT, path: [] });
  });

  it('points at document: when it is not a mapping, and at its kind when that is not a kind, with a did-you-mean', () => {
    expect(detectFileKind({ document: 'dashboard' })).toEqual({ kind: 'unknown', reason: 'document: must be a mapping with kind (dashboard or notebook) and name', path: ['document'] });
    expect(detectFileKind({ document: [] })).toMatchObject({ path: ['document'] });
    expect(detectFileKind({ document: { kind: 'notebok' } })).toEqual({ kind: 'unknown', reason: 'unknown value "notebok"; did you mean notebook?', path: ['document', 'kind'] });
    expect(detectFileKind({ document: { kind: 'launchpad' } })).toEqual({ kind: 'unknown', reason: 'unknown value "launchpad"; use one of dashboard, notebook', path: ['document', 'kind'] });
    expect(detectFileKind({ document: { name: 'x' } })).toEqual({ kind: 'unknown', reason: 'expected dashboard or notebook', path: ['document', 'kind'] });
    expect(detectFileKind({ document: { kind: 3 } })).toEqual({ kind: 'unknown', reason: 'expected dashboard or notebook', path: ['document', 'kind'] });
  });
});

describe('isDocumentShaped: which checks a parsed file goes to', () => {
  it('takes a document: member, or a document\'s content without classic members, to the document checks', () => {
    for (const value of [{ document: { kind: 'notebook' } }, { document: 'anything' }, { document: { kind: 'dashboard' }, tiles: [] }, { tiles: {} }, { layouts: {} }, { sections: [] }]) {
      expect(isDocumentShaped(value), JSON.stringify(value)).toBe(true);
    }
  });

  it('leaves classic dashboards, content of neither kind and anything but a mapping to the classic checks', () => {
    for (const value of [{ dashboardMetadata: {}, tiles: {} }, { tiles: [] }, { sections: {} }, { name: 'x' }, [], 'text', null]) {
      expect(isDocumentShaped(value), JSON.stringify(value)).toBe(false);
    }
  });
});
