import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkDocumentFile, checkDocumentSource } from '../../../src/desired/document-check.js';
import { DashboardContent, NotebookContent, type DocumentKind } from '../../../src/schema/document-content.js';
import { DOCUMENT_FILE_SCHEMA_IDS, documentFileJsonSchema } from '../../../src/schema/document-content-json-schema.js';
import { CORPUS_DOCUMENT_DASHBOARDS_DIR, CORPUS_NOTEBOOKS_DIR } from '../../helpers/corpus.js';

type Plain = Record<string, unknown>;

function corpus(dir: string): [string, string][] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => [name, readFileSync(join(dir, name), 'utf8')]);
}

const dashboards = corpus(CORPUS_DOCUMENT_DASHBOARDS_DIR);
const notebooks = corpus(CORPUS_NOTEBOOKS_DIR);

/** A downloaded content made a file: the one addition, `document:`. */
function asFile(kind: DocumentKind, content: Plain, block: Plain = {}): Plain {
  return { document: { kind, name: 'Checkout', ...block }, ...content };
}

const MARKDOWN = { type: 'markdown', content: 'hi' };
const AT_ORIGIN = { x: 0, y: 0, w: 8, h: 4 };
const dashboard = (content: Plain = {}): Plain => asFile('dashboard', { version: 21, tiles: { '0': MARKDOWN }, layouts: { '0': AT_ORIGIN }, ...content });
const notebook = (content: Plain = {}): Plain => asFile('notebook', { version: '7', sections: [{ id: 'a', type: 'markdown', markdown: 'x' }], ...content });

describe('every corpus document is a valid file with document: added', () => {
  it.each(dashboards)('platform dashboard %s', (_, text) => {
    const content = JSON.parse(text) as Plain;
    expect(DashboardContent.safeParse(content).error).toBeUndefined();
    expect(checkDocumentFile(asFile('dashboard', content), 'dashboard')).toEqual({ problems: [], warnings: [] });
  });

  it.each(notebooks)('notebook %s', (_, text) => {
    const content = JSON.parse(text) as Plain;
    expect(NotebookContent.safeParse(content).error).toBeUndefined();
    expect(checkDocumentFile(asFile('notebook', content), 'notebook')).toEqual({ problems: [], warnings: [] });
  });

  it('includes the empty notebook and the documents carrying Monaco {{.name}} placeholders as plain text', () => {
    const empty = notebooks.filter(([, text]) => (JSON.parse(text) as { sections: unknown[] }).sections.length === 0);
    expect(empty).toHaveLength(1);
    const templated = [...dashboards, ...notebooks].filter(([, text]) => text.includes('{{'));
    expect(templated.length).toBeGreaterThanOrEqual(8);
  });
});

describe('checkDocumentFile', () => {
  it('accepts the smallest files of each kind, and an empty dashboard', () => {
    expect(checkDocumentFile(dashboard(), 'dashboard')).toEqual({ problems: [], warnings: [] });
    expect(checkDocumentFile(notebook(), 'notebook')).toEqual({ problems: [], warnings: [] });
    expect(checkDocumentFile(dashboard({ tiles: {}, layouts: {} }), 'dashboard')).toEqual({ problems: [], warnings: [] });
  });

  it('wants an integer version for dashboards and a string version for notebooks', () => {
    expect(checkDocumentFile(dashboard({ version: '21' }), 'dashboard').problems).toEqual([{ path: ['version'], message: 'Invalid input: expected number, received string' }]);
    expect(checkDocumentFile(dashboard({ version: 2.5 }), 'dashboard').problems).toEqual([{ path: ['version'], message: 'Invalid input: expected int, received number' }]);
    expect(checkDocumentFile(notebook({ version: 7 }), 'notebook').problems).toEqual([{ path: ['version'], message: 'Invalid input: expected string, received number' }]);
    expect(checkDocumentFile(notebook({ version: undefined }), 'notebook').problems).toEqual([{ path: ['version'], message: 'Required' }]);
  });

  it('reports a tile without a layout at the tile, and a layout without a tile at the layout', () => {
    const file = dashboard({ tiles: { '0': MARKDOWN, kpi: MARKDOWN }, layouts: { '0': AT_ORIGIN, '9': AT_ORIGIN } });
    expect(checkDocumentFile(file, 'dashboard').problems).toEqual([
      { path: ['tiles', 'kpi'], message: 'tile "kpi" has no layout: add layouts.kpi: { x, y, w, h }', atKey: true },
      { path: ['layouts', '9'], message: 'layout "9" has no tile: no tiles.9', atKey: true },
    ]);
  });

  it('gives every section an id, unique in its notebook', () => {
    const sections = [
      { type: 'markdown', markdown: 'no id' },
      { id: 'a', type: 'markdown', markdown: 'x' },
      { id: 'b', type: 'dql', state: {} },
      { id: 'a', type: 'function', state: {} },
      { id: 'b', type: 'markdown', markdown: 'x' },
    ];
    expect(checkDocumentFile(notebook({ sections }), 'notebook').problems).toEqual([
      { path: ['sections', 0, 'id'], message: 'Required' },
      { path: ['sections', 3, 'id'], message: 'section id "a" is also sections[1]\'s: ids must be unique' },
      { path: ['sections', 4, 'id'], message: 'section id "b" is also sections[2]\'s: ids must be unique' },
    ]);
    expect(checkDocumentFile(notebook({ sections: [{ id: '', type: 'markdown', markdown: 'x' }] }), 'notebook').problems).toEqual([
      { path: ['sections', 0, 'id'], message: 'Too small: expected string to have >=1 characters' },
    ]);
  });

  it('names the tile or section type it meant when one is misspelled', () => {
    expect(checkDocumentFile(dashboard({ tiles: { '0': { type: 'markdwon', content: 'x' } } }), 'dashboard').problems).toEqual([
      { path: ['tiles', '0', 'type'], message: 'unknown value "markdwon"; did you mean markdown?' },
    ]);
    expect(checkDocumentFile(notebook({ sections: [{ id: 'a', type: 'sql', state: {} }] }), 'notebook').problems).toEqual([
      { path: ['sections', 0, 'type'], message: 'unknown value "sql"; did you mean dql?' },
    ]);
  });

  it('warns of unknown keys where the fields are known, with a did-you-mean, through the tiles and layouts maps', () => {
    const file = dashboard({
      tiles: { '0': { type: 'data', titel: 'Errors', query: 'fetch logs' } },
      layouts: { '0': { ...AT_ORIGIN, width: 3 } },
      setings: {},
    });
    const { problems, warnings } = checkDocumentFile(file, 'dashboard');
    expect(problems).toEqual([]);
    expect(warnings).toEqual([
      { path: ['setings'], message: 'unknown key; did you mean settings?', atKey: true },
      { path: ['tiles', '0', 'titel'], message: 'unknown key; did you mean title?', atKey: true },
      { path: ['layouts', '0', 'width'], message: 'unknown key (known here: x, y, w, h)', atKey: true },
    ]);
    const sections = [{ id: 'a', type: 'dql', state: {}, showTitel: true }];
    expect(checkDocumentFile(notebook({ sections }), 'notebook').warnings).toEqual([{ path: ['sections', 0, 'showTitel'], message: 'unknown key; did you mean showTitle?', atKey: true }]);
  });

  it('leaves open what the apps fill freely: visualization settings, query state and results, Davis settings', () => {
    const tile = { type: 'data', query: 'q', visualizationSettings: { anything: { at: ['all'] } }, davis: { newThing: 1 }, queryConfig: { x: 1 } };
    expect(checkDocumentFile(dashboard({ tiles: { '0': tile } }), 'dashboard')).toEqual({ problems: [], warnings: [] });
    const section = { id: 'a', type: 'dql', state: { result: { records: [{ a: 1 }] }, brandNew: true } };
    expect(checkDocumentFile(notebook({ sections: [section] }), 'notebook')).toEqual({ problems: [], warnings: [] });
  });

  it('checks document: name required and limited, ids the service takes (a UUID included), isPrivate a boolean', () => {
    const check = (block: Plain): unknown => checkDocumentFile(dashboard({ document: { kind: 'dashboard', ...block } }), 'dashboard');
    expect(check({ name: 'x', id: '0b3c1a52-5b8e-4a57-9bd8-5fb5c2fa0d36', isPrivate: true, description: 'd' })).toEqual({ problems: [], warnings: [] });
    expect(check({})).toEqual({ problems: [{ path: ['document', 'name'], message: 'Required' }], warnings: [] });
    expect(check({ name: '' })).toMatchObject({ problems: [{ path: ['document', 'name'], message: 'The document name must not be empty.' }] });
    expect(check({ name: 'x', id: 'team/api' })).toMatchObject({ problems: [{ path: ['document', 'id'], message: 'A document id is 1 to 100 letters, digits and dashes.' }] });
    expect(check({ name: 'x', id: 'a'.repeat(101) })).toMatchObject({ problems: [{ path: ['document', 'id'] }] });
    expect(check({ name: 'x', isPrivate: 'yes' })).toMatchObject({ problems: [{ path: ['document', 'isPrivate'] }] });
    expect(check({ name: 'x', description: 'd'.repeat(257) })).toMatchObject({ problems: [{ path: ['document', 'description'] }] });
    expect(check({ name: 'x', privat: true })).toEqual({ problems: [], warnings: [{ path: ['document', 'privat'], message: 'unknown key (known here: kind, id, name, description, isPrivate)', atKey: true }] });
    expect(check({ name: 'x', isprivate: true })).toMatchObject({ warnings: [{ path: ['document', 'isprivate'], message: 'unknown key; did you mean isPrivate?' }] });
  });

  it('reports content of the wrong shape through the schema alone, never throwing on it', () => {
    expect(checkDocumentFile(asFile('dashboard', { version: 21 }), 'dashboard').problems).toEqual([
      { path: ['tiles'], message: 'Required' },
      { path: ['layouts'], message: 'Required' },
    ]);
    expect(checkDocumentFile(dashboard({ tiles: { '0': MARKDOWN }, layouts: null }), 'dashboard').problems).toEqual([
      { path: ['layouts'], message: 'Invalid input: expected record, received null' },
    ]);
    expect(checkDocumentFile(dashboard({ tiles: [MARKDOWN] }), 'dashboard').problems).toMatchObject([{ path: ['tiles'] }]);
    expect(checkDocumentFile(notebook({ sections: { a: {} } }), 'notebook').problems).toMatchObject([{ path: ['sections'] }]);
  });

  it('leaves ids that are missing or not strings to the schema, never calling them duplicates', () => {
    const sections = [
      { type: 'markdown', markdown: 'x' },
      { type: 'markdown', markdown: 'y' },
      { id: 1, type: 'markdown', markdown: 'x' },
      { id: 1, type: 'markdown', markdown: 'y' },
    ];
    expect(checkDocumentFile(notebook({ sections }), 'notebook').problems).toEqual([
      { path: ['sections', 0, 'id'], message: 'Required' },
      { path: ['sections', 1, 'id'], message: 'Required' },
      { path: ['sections', 2, 'id'], message: 'Invalid input: expected string, received number' },
      { path: ['sections', 3, 'id'], message: 'Invalid input: expected string, received number' },
    ]);
  });

  it('does not ask the kind of content the other kind has, and leaves dashcd: to environments', () => {
    expect(checkDocumentFile(notebook({ dashcd: { anything: true } }), 'notebook')).toEqual({ problems: [], warnings: [] });
  });
});

describe('checkDocumentSource: problems at file:line:col', () => {
  const yaml = [
    'document:', //               1
    '  kind: dashboard', //       2
    '  name: Checkout', //        3
    'version: 21', //             4
    'tiles:', //                  5
    '  "0":', //                  6
    '    type: data', //          7
    '    titel: Errors', //       8
    '    query: fetch logs', //   9
    '  kpi:', //                  10
    '    type: markdown', //      11
    '    content: x', //          12
    'layouts:', //                13
    '  "0": { x: 0, y: 0, w: 8, h: 4 }', // 14
    '',
  ].join('\n');

  it('puts a misspelled key at the key and a tile without layout at the tile', () => {
    expect(checkDocumentSource(yaml)).toEqual({
      problems: [{ line: 10, col: 3, path: 'tiles.kpi', message: 'tile "kpi" has no layout: add layouts.kpi: { x, y, w, h }' }],
      warnings: [{ line: 8, col: 5, path: 'tiles.0.titel', message: 'unknown key; did you mean title?' }],
    });
  });

  it('does the same in a JSON file, and points at a layout without its tile', () => {
    const json = `{
  "document": { "kind": "dashboard", "name": "Checkout" },
  "version": 21,
  "tiles": { "0": { "type": "markdown", "contnet": "x", "content": "y" } },
  "layouts": {
    "0": { "x": 0, "y": 0, "w": 8, "h": 4 },
    "1": { "x": 8, "y": 0, "w": 8, "h": 4 }
  }
}`;
    expect(checkDocumentSource(json)).toEqual({
      problems: [{ line: 7, col: 5, path: 'layouts.1', message: 'layout "1" has no tile: no tiles.1' }],
      warnings: [{ line: 4, col: 41, path: 'tiles.0.contnet', message: 'unknown key; did you mean content?' }],
    });
  });

  it('reports a schema problem at its value and the kind at fault at document.kind', () => {
    const wrong = yaml.replace('kind: dashboard', 'kind: dashbord').replace('version: 21', 'version: "21"');
    expect(checkDocumentSource(wrong).problems).toEqual([{ line: 2, col: 9, path: 'document.kind', message: 'unknown value "dashbord"; did you mean dashboard?' }]);
    expect(checkDocumentSource(yaml.replace('version: 21', 'version: "21"')).problems[0]).toEqual({
      line: 4,
      col: 10,
      path: 'version',
      message: 'Invalid input: expected number, received string',
    });
  });

  it('says what to add to a downloaded content, and refuses a classic dashboard or broken YAML', () => {
    expect(checkDocumentSource('version: "5"\nsections: []\n').problems).toEqual([
      { line: 1, col: 1, path: '', message: "a notebook's content (sections) without the document: member dashcd needs; add document: { kind: notebook, name: … }" },
    ]);
    expect(checkDocumentSource('dashboardMetadata: { name: x }\ntiles: []\n').problems).toEqual([
      { line: 1, col: 1, path: '', message: 'a classic dashboard, not a platform document' },
    ]);
    const broken = checkDocumentSource('document:\n  kind: notebook\n  kind: dashboard\n');
    expect(broken.problems).toHaveLength(1);
    // The repeated key is named, as in a classic file (it said only "Map keys must be unique").
    expect(broken.problems[0]).toEqual({ line: 3, col: 3, path: '', message: 'Map keys must be unique: kind appears more than once' });
  });
});

describe('checkDocumentSource: text that is not one readable mapping', () => {
  const head = 'document: { kind: notebook, name: x }\nversion: "5"\n';

  it('reports an alias without its anchor, or aliases that expand too far, instead of throwing', () => {
    expect(checkDocumentSource(`${head}sections: [*nope]\n`)).toEqual({
      problems: [{ line: 3, col: 12, path: '', message: 'alias *nope has no anchor &nope before it: define the anchor first, or write the value out' }],
      warnings: [],
    });
    const bomb = ['a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]', 'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]', 'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]', 'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c, *c]'];
    expect(checkDocumentSource(`${bomb.join('\n')}\n`).problems).toEqual([
      { line: 2, col: 8, path: '', message: expect.stringMatching(/^aliases expand to too many values/) as unknown },
    ]);
  });

  it('reads an alias with its anchor as its value', () => {
    const section = '{ id: a, type: markdown, markdown: x }';
    expect(checkDocumentSource(`${head}sections: [&s ${section}, *s]\n`).problems).toEqual([
      { line: 3, col: 55, path: 'sections[1].id', message: 'section id "a" is also sections[0]\'s: ids must be unique' },
    ]);
  });

  it('reports a second YAML document and a syntax error where they are, in one plain line', () => {
    expect(checkDocumentSource(`${head}sections: []\n---\nb: 2\n`)).toEqual({
      problems: [{ line: 4, col: 1, path: '', message: 'Source contains multiple documents; please use YAML.parseAllDocuments()' }],
      warnings: [],
    });
    expect(checkDocumentSource(`${head}sections: [\n`).problems).toEqual([
      { line: 4, col: 1, path: '', message: 'Flow sequence in block collection must be sufficiently indented and end with a ]' },
    ]);
  });

  it('checks a notebook file as a notebook, and lists problems in text order whatever order they are found in', () => {
    const text = [
      'document: { kind: notebook, name: x }',
      'version: "5"',
      'sections:',
      '  - { type: markdown, markdown: y, id: a }',
      '  - { markdown: 3, id: a, type: markdown }',
      '',
    ].join('\n');
    expect(checkDocumentSource(text)).toEqual({
      problems: [
        { line: 5, col: 17, path: 'sections[1].markdown', message: 'Invalid input: expected string, received number' },
        { line: 5, col: 24, path: 'sections[1].id', message: 'section id "a" is also sections[0]\'s: ids must be unique' },
      ],
      warnings: [],
    });
    const layouts = ['document: { kind: dashboard, name: x }', 'version: 1', 'layouts:', '  "9": { y: "b", x: "a", w: 1, h: 1 }', 'tiles: {}', ''].join('\n');
    expect(checkDocumentSource(layouts).problems.map((p) => `${p.line}:${p.col} ${p.path}`)).toEqual(['4:3 layouts.9', '4:13 layouts.9.y', '4:21 layouts.9.x']);
  });
});

describe('documentFileJsonSchema', () => {
  const schemas = { dashboard: documentFileJsonSchema('dashboard') as Plain, notebook: documentFileJsonSchema('notebook') as Plain };
  const properties = (schema: Plain): Record<string, Plain> => schema.properties as Record<string, Plain>;

  it('is a draft-07 schema per kind, with its own id, requiring document: and the content\'s members', () => {
    for (const kind of ['dashboard', 'notebook'] as const) {
      expect(Object.keys(schemas[kind]).slice(0, 3)).toEqual(['$schema', '$id', 'title']);
      expect(schemas[kind].$id).toBe(DOCUMENT_FILE_SCHEMA_IDS[kind]);
      expect(schemas[kind].$schema).toBe('http://json-schema.org/draft-07/schema#');
    }
    expect(DOCUMENT_FILE_SCHEMA_IDS.dashboard).not.toBe(DOCUMENT_FILE_SCHEMA_IDS.notebook);
    expect(schemas.dashboard.required).toEqual(['document', 'version', 'tiles', 'layouts']);
    expect(schemas.notebook.required).toEqual(['document', 'version', 'sections']);
    expect(properties(schemas.dashboard).version).toMatchObject({ type: 'integer' });
    expect(properties(schemas.notebook).version).toMatchObject({ type: 'string' });
  });

  it('names the kind as a constant, so an editor tells the two apart', () => {
    expect(properties(properties(schemas.dashboard).document as Plain).kind).toMatchObject({ const: 'dashboard' });
    expect(properties(properties(schemas.notebook).document as Plain).kind).toMatchObject({ const: 'notebook' });
  });

  it('closes the objects whose fields are known and leaves the apps\' free-form members open', () => {
    const dashboardProperties = properties(schemas.dashboard);
    expect(schemas.dashboard.additionalProperties).toBe(false);
    expect(dashboardProperties.document).toMatchObject({ additionalProperties: false });
    expect(dashboardProperties.layouts).toMatchObject({ type: 'object', additionalProperties: { additionalProperties: false, required: ['x', 'y', 'w', 'h'] } });
    const tiles = (dashboardProperties.tiles as { additionalProperties: { oneOf: Plain[] } }).additionalProperties.oneOf;
    expect(tiles).toHaveLength(5);
    const data = tiles.find((tile) => JSON.stringify(tile).includes('"const":"data"')) as Plain;
    expect(data.additionalProperties).toBe(false);
    expect(properties(data).visualizationSettings).toMatchObject({ type: 'object' });
    expect(properties(data).visualizationSettings?.additionalProperties).not.toBe(false);
    const sections = (properties(schemas.notebook).sections as { items: { oneOf: Plain[] } }).items.oneOf;
    const dql = sections.find((section) => JSON.stringify(section).includes('"const":"dql"')) as Plain;
    expect(dql.required).toEqual(['id', 'type', 'state']);
    expect(properties(dql).state?.additionalProperties).not.toBe(false);
  });
});
