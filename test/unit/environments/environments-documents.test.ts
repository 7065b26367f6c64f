import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseProjectConfig } from '../../../src/config/project-config.js';
import { formatDiagnostic } from '../../../src/desired/diagnostic.js';
import { deriveDocumentId } from '../../../src/desired/document-id.js';
import { deriveDashboardId } from '../../../src/desired/load-desired.js';
import { checkSource } from '../../../src/desired/check-source.js';
import { applyOverrides } from '../../../src/environments/apply-overrides.js';
import type { DocumentDashcdBlock } from '../../../src/environments/dashcd-block.js';
import { declaredEnvironments } from '../../../src/environments/environment.js';
import { parseTemplateFile } from '../../../src/environments/load-templates.js';
import type { EnvironmentDesired } from '../../../src/environments/resolve-environment.js';
import { resolveEnvironments, type ResolveResult } from '../../../src/environments/resolve-environments.js';
import { BOARD, CONFIG, TRIAGE } from '../../helpers/document-templates.js';

/** Platform dashboards and notebooks through the environments stage: values, overrides, limits, ids, references. */

function resolve(files: Record<string, string>, names?: string[]): ResolveResult {
  const { config, diagnostics } = parseProjectConfig(CONFIG, 'dashcd.yaml');
  expect(diagnostics).toEqual([]);
  const declared = declaredEnvironments(config);
  const templates = Object.entries(files).map(([name, source]) => {
    const file = parseTemplateFile(source);
    if (!('value' in file)) throw new Error(`${name} does not parse: ${JSON.stringify(file.problems)}`);
    return { file: `dashboards/${name}`, name, source, value: file.value };
  });
  return resolveEnvironments({
    files: templates,
    project: { file: 'dashcd.yaml', source: CONFIG, config },
    declared,
    selected: names ? declared.filter((e) => names.includes(e.name)) : declared,
    deriveId: deriveDashboardId,
  });
}

function environment(files: Record<string, string>, name: string): EnvironmentDesired {
  const found = resolve(files, [name]);
  expect(found.diagnostics.map(formatDiagnostic)).toEqual([]);
  return found.environments[0] as EnvironmentDesired;
}

const problemsIn = (files: Record<string, string>, name: string): string[] => environment(files, name).diagnostics.map(formatDiagnostic);
const FILES = { 'board.yaml': BOARD, 'triage.yaml': TRIAGE };
const BOARD_ID = deriveDocumentId('board.yaml');

describe('documents in environments: values, limits and overrides', () => {
  it('reads a notebook as a template (it has no classic member)', () => {
    expect(parseTemplateFile(TRIAGE)).toEqual({ value: expect.objectContaining({ document: expect.objectContaining({ kind: 'notebook' }) }) });
  });

  it('refuses a template nested thousands deep at the nesting, before yaml reads it', () => {
    const deep = `${TRIAGE}x: ${'['.repeat(3000)}${']'.repeat(3000)}\n`;
    expect(parseTemplateFile(deep)).toEqual({ problems: [{ line: TRIAGE.split('\n').length, col: expect.any(Number), path: '', message: expect.stringContaining('collections nested too deeply to read') }] });
  });

  it('gives dev the file with its values: every tile, every section, ids from the path and from document.id', () => {
    const dev = environment(FILES, 'dev');
    expect(dev.diagnostics).toEqual([]);
    expect(dev.dashboards.map((d) => [d.kind, d.file, d.id, d.idSource, d.name])).toEqual([
      ['document', 'dashboards/board.yaml', BOARD_ID, 'derived', 'Checkout dev'],
      ['document', 'dashboards/triage.yaml', 'triage-notes', 'file', 'Triage'],
    ]);
    expect(dev.dashboards[0]?.body).toEqual({
      document: { kind: 'dashboard', name: 'Checkout dev' },
      version: 21,
      tiles: {
        intro: { type: 'markdown', content: '[Triage](/ui/apps/dynatrace.notebooks/notebook/triage-notes)' },
        errors: { type: 'data', query: 'fetch logs | filter service == "checkout"' },
        debug: { type: 'markdown', content: 'debug' },
      },
      layouts: { intro: { x: 0, y: 0, w: 24, h: 2 }, errors: { x: 0, y: 2, w: 12, h: 4 }, debug: { x: 12, y: 2, w: 12, h: 4 } },
    });
    expect((dev.dashboards[1]?.body.sections as { id: string }[]).map((s) => s.id)).toEqual(['intro', 'debug', 'logs']);
  });

  it('gives prod its override: a tile merged by key, a limited tile dropped with its layout, sections matched by id, a new one at the end', () => {
    const prod = environment(FILES, 'prod');
    expect(prod.diagnostics).toEqual([]);
    const [board, triage] = prod.dashboards;
    expect(board?.body.tiles).toEqual({
      intro: { type: 'markdown', content: '[Triage](/ui/apps/dynatrace.notebooks/notebook/triage-prod)' },
      errors: { type: 'data', query: 'fetch logs | filter service == "checkout-prod"', title: 'Errors (production)' },
    });
    expect(Object.keys(board?.body.layouts as object)).toEqual(['intro', 'errors']);
    expect([triage?.id, triage?.idSource]).toEqual(['triage-prod', 'file']);
    expect(triage?.body.sections).toEqual([
      { id: 'intro', type: 'markdown', markdown: 'Triage of checkout-prod' },
      { id: 'logs', type: 'dql', state: { input: { value: 'fetch logs' } }, title: 'Production logs' },
      { id: 'budget', type: 'markdown', markdown: 'prod only' },
    ]);
  });

  it('carries the body the single-target loader would give the same file: document: without its id, then the content; hashed as sent', () => {
    const plain = 'document:\n  kind: notebook\n  name: Plain\n  id: plain-notes\nversion: "7"\nsections:\n  - id: a\n    type: markdown\n    markdown: x\n';
    const [notebook] = environment({ 'plain.yaml': plain }, 'dev').dashboards;
    const single = checkSource(plain);
    expect(single.ok && single.bodyJson).toBe(notebook?.bodyJson);
    expect(notebook?.bodyJson).toBe('{"document":{"kind":"notebook","name":"Plain"},"version":"7","sections":[{"id":"a","type":"markdown","markdown":"x"}]}');
    expect(notebook?.body).toEqual(JSON.parse(notebook?.bodyJson ?? ''));
    expect(notebook?.contentHash).toBe(createHash('sha256').update(notebook?.bodyJson ?? '').digest('hex'));
  });

  it('removes a tile with null in an override; the layout left behind is reported at the file’s layout', () => {
    const removed = BOARD.replace('          title: Errors (production)\n', '          title: Errors (production)\n        debug: null\n').replace('  tiles:\n    debug: { environments: [dev] }\n', '');
    expect(problemsIn({ 'board.yaml': removed, 'triage.yaml': TRIAGE }, 'prod')).toEqual([
      'dashboards/board.yaml:18:10  [prod] layouts.debug: layout "debug" has no tile: no tiles.debug',
    ]);
    const both = removed.replace('        debug: null\n', '        debug: null\n      layouts: { debug: null }\n');
    expect(Object.keys(environment({ 'board.yaml': both, 'triage.yaml': TRIAGE }, 'prod').dashboards[0]?.body.tiles as object)).toEqual(['intro', 'errors']);
  });

  it('locates a problem in an override at the override’s text, naming the value when one is at fault', () => {
    const bad = BOARD.replace('          title: Errors (production)\n', '          title: Errors (production)\n          query: 5\n');
    expect(problemsIn({ 'board.yaml': bad, 'triage.yaml': TRIAGE }, 'prod')).toEqual([
      'dashboards/board.yaml:27:18  [prod] dashcd.overrides.production.tiles.errors.query: Invalid input: expected string, received number',
    ]);
    const width = BOARD.replace('  errors: { x: 0, y: 2, w: 12, h: 4 }\n', '  errors: { x: 0, y: 2, w: "${{ values.service }}", h: 4 }\n');
    expect(problemsIn({ 'board.yaml': width, 'triage.yaml': TRIAGE }, 'dev')).toEqual([
      'dashboards/board.yaml:17:28  [dev] layouts.errors.w: Invalid input: expected number, received string (values.service = "checkout", set in values at dashcd.yaml:2:12)',
    ]);
    const section = TRIAGE.replace('          title: Production logs\n', '          title: Production logs\n          showInput: yes please\n');
    expect(problemsIn({ 'board.yaml': BOARD, 'triage.yaml': section }, 'prod')).toEqual([
      'dashboards/triage.yaml:28:22  [prod] dashcd.overrides.prod.sections[1].showInput: Invalid input: expected boolean, received string',
    ]);
  });

  it('warns about an unknown key in an override at the override', () => {
    const typo = BOARD.replace('          title: Errors (production)\n', '          titel: Errors (production)\n');
    const prod = environment({ 'board.yaml': typo, 'triage.yaml': TRIAGE }, 'prod');
    expect(prod.warnings.map(formatDiagnostic)).toEqual([expect.stringMatching(/^dashboards\/board\.yaml:26:18 {2}\[prod\] dashcd\.overrides\.production\.tiles\.errors\.titel: unknown key; did you mean title\?/)]);
  });

  it('refuses limits naming a tile key or section id the file does not have, and unknown environments in them', () => {
    const tile = BOARD.replace('    debug: { environments: [dev] }\n', '    debgu: { environments: [dev] }\n');
    expect(problemsIn({ 'board.yaml': tile, 'triage.yaml': TRIAGE }, 'dev')).toEqual(['dashboards/board.yaml:21:12  [dev] dashcd.tiles.debgu: no tile has the key "debgu"']);
    const section = TRIAGE.replace('    debug: { environments: [dev] }\n', '    dbug: { environments: [dev] }\n');
    expect(problemsIn({ 'board.yaml': BOARD, 'triage.yaml': section }, 'dev')).toEqual(['dashboards/triage.yaml:18:11  [dev] dashcd.sections.dbug: no section has the id "dbug"']);
    const env = TRIAGE.replace('    debug: { environments: [dev] }\n', '    debug: { environments: [qa] }\n');
    expect(resolve({ 'triage.yaml': env }).diagnostics.map(formatDiagnostic)).toEqual([
      'dashboards/triage.yaml:18:29  dashcd.sections.debug.environments[0]: unknown environment or group qa (declared in dashcd.yaml: dev, prod, production)',
    ]);
  });

  it('refuses an override section without an id, and a classic-style tile list in a document’s override', () => {
    const noId = TRIAGE.replace('        - id: budget\n', '        - title: budget\n');
    expect(resolve({ 'triage.yaml': noId }).diagnostics.map((d) => d.path)).toEqual(['dashcd.overrides.prod.sections[0].id']);
    const list = BOARD.replace('        errors:\n          title: Errors (production)\n', '        - name: errors\n');
    expect(problemsIn({ 'board.yaml': list, 'triage.yaml': TRIAGE }, 'prod')).toEqual([
      expect.stringMatching(/^dashboards\/board\.yaml:25:9 {2}\[prod\] dashcd\.overrides\.production\.tiles: /),
    ]);
  });

  it('keeps a document out of environments its dashcd.environments leaves out; a reference to it is an error there', () => {
    const devOnly = TRIAGE.replace('dashcd:\n', 'dashcd:\n  environments: [dev]\n');
    const prod = resolve({ 'board.yaml': BOARD, 'triage.yaml': devOnly }, ['prod']).environments[0];
    expect(prod?.dashboards).toEqual([]);
    expect(prod?.diagnostics.map(formatDiagnostic)).toEqual([
      'dashboards/board.yaml:8:14  [prod] tiles.intro.content: dashboard("triage.yaml"): triage.yaml is not deployed in prod (its dashcd.environments leaves prod out)',
    ]);
  });
});

describe('documents in environments: ids', () => {
  const notebook = (name: string, id = ''): string => `document:\n  kind: notebook\n  name: ${name}\n${id}version: "1"\nsections: []\n`;
  const classic = (id: string): string => `id: ${id}\ndashboardMetadata: { name: C, owner: o }\ntiles: []\n`;
  const UUID = '6b0f6d3e-0000-4000-8000-0000000000aa';

  it('takes document.id from a value, and refuses one the Document service would not take, at its origin', () => {
    const fromValue = environment({ 'a.yaml': notebook('A', '  id: nb-${{ values.service }}\n') }, 'prod');
    expect(fromValue.dashboards.map((d) => d.id)).toEqual(['nb-checkout-prod']);
    const spaced = notebook('A', '  id: "${{ values.service }}"\n') + 'dashcd:\n  overrides:\n    dev:\n      document: { id: "has spaces" }\n';
    expect(problemsIn({ 'a.yaml': spaced }, 'dev')).toEqual([
      'dashboards/a.yaml:10:23  [dev] dashcd.overrides.dev.document.id: "has spaces" is not a document id: use 1 to 100 letters, digits and dashes, or remove document.id to derive one from the file path',
    ]);
    expect(problemsIn({ 'a.yaml': notebook('A', '  id: 7\n') }, 'dev')).toEqual([
      'dashboards/a.yaml:4:7  [dev] document.id: 7 is not a document id: use 1 to 100 letters, digits and dashes, or remove document.id to derive one from the file path',
    ]);
  });

  it('counts duplicate ids per kind: two documents clash, a document and a classic dashboard with one id do not', () => {
    const shared = environment({ 'c.yaml': classic(UUID), 'n.yaml': notebook('N', `  id: ${UUID}\n`) }, 'dev');
    expect(shared.diagnostics).toEqual([]);
    expect(shared.dashboards.map((d) => [d.kind ?? 'classic', d.id])).toEqual([
      ['classic', UUID],
      ['document', UUID],
    ]);
    expect(problemsIn({ 'a.yaml': notebook('A', '  id: same\n'), 'b.yaml': notebook('B', '  id: same\n') }, 'dev')).toEqual([
      'dashboards/b.yaml:4:7  [dev] document.id: duplicate document id same: dashboards/a.yaml has the same id; every document needs its own id',
    ]);
  });

  it('resolves dashboard("…") to the referenced file’s id whichever kind it is', () => {
    const links = `dashboardMetadata: { name: L, owner: o }\ntiles:\n  - name: n\n    tileType: MARKDOWN\n    bounds: { top: 0, left: 0, width: 304, height: 152 }\n    markdown: '\${{ dashboard("n.yaml") }} \${{ dashboard("c.yaml") }}'\n`;
    const dev = environment({ 'l.yaml': links, 'n.yaml': notebook('N'), 'c.yaml': classic(UUID) }, 'dev');
    const markdown = (dev.dashboards[0]?.body.tiles as { markdown: string }[])[0]?.markdown;
    expect(markdown).toBe(`${deriveDocumentId('n.yaml')} ${UUID}`);
  });
});

describe('applyOverrides on a notebook', () => {
  it('keeps where each section came from, through limits and overrides', () => {
    const block: DocumentDashcdBlock = { sections: { b: { environments: ['dev'] } }, overrides: { prod: { sections: [{ id: 'new', markdown: 'n' }, { id: 'c', markdown: 'c2' }] } } };
    const file = { document: { kind: 'notebook', name: 'N' }, sections: [{ id: 'a' }, { id: 'b' }, { id: 'c', markdown: 'c' }], dashcd: block };
    const layered = applyOverrides(file, block, { name: 'prod', group: null });
    expect(layered?.value.sections).toEqual([{ id: 'a' }, { id: 'c', markdown: 'c2' }, { id: 'new', markdown: 'n' }]);
    expect(layered?.originOf(['sections', 1, 'markdown'])).toEqual(['dashcd', 'overrides', 'prod', 'sections', 1, 'markdown']);
    expect(layered?.originOf(['sections', 1, 'id'])).toEqual(['dashcd', 'overrides', 'prod', 'sections', 1, 'id']);
    expect(layered?.originOf(['sections', 0, 'id'])).toEqual(['sections', 0, 'id']);
    expect(layered?.originOf(['sections', 2])).toEqual(['dashcd', 'overrides', 'prod', 'sections', 0]);
  });

  it('refuses to guess between sections of one id', () => {
    const block: DocumentDashcdBlock = { overrides: { dev: { sections: [{ id: 'a', markdown: 'x' }] } } };
    const file = { document: { kind: 'notebook', name: 'N' }, sections: [{ id: 'a' }, { id: 'a' }] };
    expect(applyOverrides(file, block, { name: 'dev', group: null })?.problems).toEqual([
      { path: ['dashcd', 'overrides', 'dev', 'sections', 0], message: '2 sections have the id "a": give them distinct ids to override one' },
    ]);
  });
});
