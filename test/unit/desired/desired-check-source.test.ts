import { describe, expect, it } from 'vitest';
import { checkSource } from '../../../src/desired/check-source.js';

const CLASSIC = 'dashboardMetadata: { name: Hosts, owner: ops }\ntiles: []\n';
const NOTEBOOK = 'document: { kind: notebook, name: Triage, id: triage }\nversion: "7"\nsections: [{ id: a, type: markdown, markdown: hi }]\n';

describe('checkSource: each file to its kind’s checks', () => {
  it('packs a classic dashboard as before: no kind, its name, its body', () => {
    expect(checkSource(CLASSIC)).toEqual({ ok: true, fileId: undefined, name: 'Hosts', hasEnvironmentOverrides: false, bodyJson: '{"dashboardMetadata":{"name":"Hosts","owner":"ops"},"tiles":[]}' });
  });

  it('packs a document as one: its id and name from document:, the body without document.id and dashcd:', () => {
    expect(checkSource(`${NOTEBOOK}dashcd: { environments: [dev] }\n`)).toEqual({
      ok: true,
      kind: 'document',
      fileId: 'triage',
      name: 'Triage',
      hasEnvironmentOverrides: true,
      bodyJson: '{"document":{"kind":"notebook","name":"Triage"},"version":"7","sections":[{"id":"a","type":"markdown","markdown":"hi"}]}',
    });
  });

  it('gives the same answer when the fast parser declines the text (an anchor) as when it reads it', () => {
    const anchored = 'document: { kind: notebook, name: &n Triage, id: triage }\nversion: "7"\nsections: [{ id: a, type: markdown, markdown: *n }]\n';
    expect(checkSource(anchored)).toMatchObject({ ok: true, kind: 'document', bodyJson: expect.stringContaining('"markdown":"Triage"') });
  });

  it('says what to add to an app download without document:, at the top of the file', () => {
    expect(checkSource('version: 21\ntiles: {}\nlayouts: {}\n')).toEqual({
      ok: false,
      problems: [{ line: 1, col: 1, path: '', message: expect.stringContaining('add document: { kind: dashboard, name: … }') }],
    });
  });

  it('locates a document’s problems and keeps its unknown keys as warnings', () => {
    const broken = checkSource('document: { kind: notebook, name: Triage }\nversion: 7\nsections: []\n');
    expect(broken).toMatchObject({ ok: false, problems: [{ line: 2, col: 10, path: 'version' }] });
    const both = checkSource('document: { kind: notebook, name: Triage, descriptoin: x }\nversion: 7\nsections: []\n');
    expect(both).toMatchObject({ ok: false, problems: [{ path: 'version' }], warnings: [{ path: 'document.descriptoin' }] });
    expect(checkSource('document: { kind: notebook, name: Triage }\nversion: 7\nsections: []\n')).not.toHaveProperty('warnings');
    const typo = checkSource('document: { kind: notebook, name: Triage, descriptoin: x }\nversion: "7"\nsections: []\n');
    expect(typo).toMatchObject({ ok: true, kind: 'document', warnings: [{ line: 1, path: 'document.descriptoin', message: expect.stringContaining('did you mean description?') }] });
  });

  it('refuses a file nested thousands deep with a problem where the nesting goes too deep, never a fatal error', () => {
    const deep = `${'['.repeat(3000)}${']'.repeat(3000)}`;
    const json = JSON.stringify({ document: { kind: 'notebook', name: 'Deep' }, version: '7', sections: [], x: null }).replace('null', deep);
    // As Python's json.dumps writes it: spaces after separators (this shape took V8 down fatally inside yaml).
    const spaced = '{"document": {"kind": "notebook", "name": "Deep"}, "version": "7", "sections": [], "x": ' + deep + '}\n';
    const yaml = `document: { kind: notebook, name: Deep }\nversion: "7"\nsections: []\nx: ${deep}\n`;
    const classic = `dashboardMetadata: { name: d, owner: o }\ntiles: []\nx: ${deep}\n`;
    for (const [source, line] of [[json, 1], [spaced, 1], [yaml, 4], [classic, 3]] as const) {
      // At the bracket that goes past 512 levels: the 512th or 513th of the run, by what encloses it.
      const run = (source.split('\n')[line - 1] ?? '').indexOf('[[[') + 1;
      const check = checkSource(source);
      expect(check).toEqual({ ok: false, problems: [{ line, col: expect.any(Number), path: '', message: expect.stringContaining('collections nested too deeply to read') }] });
      const col = check.ok ? 0 : (check.problems[0]?.col ?? 0);
      expect(col - run).toBeGreaterThanOrEqual(511);
      expect(col - run).toBeLessThanOrEqual(512);
    }
  });

  it('counts only brackets that nest: not inside quoted strings or comments, and 512 levels still read', () => {
    const quoted = `dashboardMetadata: { name: "${'['.repeat(600)}", owner: 'o''${'{'.repeat(600)}' }\ntiles: [] # ${'['.repeat(600)}\n`;
    expect(checkSource(quoted)).toMatchObject({ ok: true, name: '['.repeat(600) });
    const nested512 = `dashboardMetadata: { name: d, owner: o }\ntiles: []\nx: ${'['.repeat(510)}${']'.repeat(510)}\n`;
    expect(checkSource(nested512).ok === false && checkSource(nested512)).not.toMatchObject({ problems: [{ message: expect.stringContaining('nested too deeply to read') }] });
  });

  it('leaves a classic file that merely mentions documents, or is no mapping, to the classic checks', () => {
    const mentions = 'dashboardMetadata: { name: &n Docs, owner: ops }\ntiles: [{ name: *n, tileType: MARKDOWN, bounds: { top: 0, left: 0, width: 38, height: 38 }, markdown: "see the document layouts" }]\n';
    expect(checkSource(mentions)).toMatchObject({ ok: true, name: 'Docs' });
    expect(checkSource(mentions)).not.toHaveProperty('kind');
    expect(checkSource('- a\n- b\n')).toMatchObject({ ok: false, problems: [{ message: expect.stringContaining('not a dashboard') }] });
    expect(checkSource('document: [unclosed\n')).toMatchObject({ ok: false });
  });
});
