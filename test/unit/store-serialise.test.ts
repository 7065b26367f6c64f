import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildDocument, serialise } from '../../src/server/store/dashboard-document.js';
import { DashboardId } from '../../src/schema/ids.js';
import { CORPUS_DASHBOARDS_DIR } from '../helpers/corpus.js';

const ID = DashboardId.parse('66666666-aaaa-4bbb-8ccc-000000000001');
const corpus = readdirSync(CORPUS_DASHBOARDS_DIR)
  .filter((name) => name.endsWith('.json'))
  .map((name) => JSON.parse(readFileSync(join(CORPUS_DASHBOARDS_DIR, name), 'utf8')) as Record<string, unknown>);

describe('serialise: one pass gives the served bytes and the file text', () => {
  it('serves exactly JSON.stringify of the document, and the file parses back to the same document', () => {
    expect(corpus.length).toBeGreaterThan(0);
    for (const body of corpus) {
      const document = buildDocument(ID, 3, body, 'v');
      const { bytes, fileText } = serialise(document);
      expect(bytes.toString('utf8')).toBe(JSON.stringify(document));
      expect(JSON.parse(fileText)).toEqual(JSON.parse(JSON.stringify(document)));
    }
  });

  it('writes one member per line and one tile per line, so a changed tile is a one-line diff', () => {
    const tiles = [{ name: 'a', tileType: 'MARKDOWN' }, { name: 'b "quoted"\n', tileType: 'HEADER' }];
    const { fileText } = serialise(buildDocument(ID, 1, { dashboardMetadata: { name: 'd', owner: 'o' }, tiles }, 'v'));
    const lines = fileText.split('\n');
    expect(lines[0]).toBe('{');
    expect(lines).toContain(`  "id": "${ID}",`);
    expect(lines).toContain('    {"name":"a","tileType":"MARKDOWN"},');
    expect(lines).toContain('    {"name":"b \\"quoted\\"\\n","tileType":"HEADER"}');
    expect(fileText.endsWith('}\n')).toBe(true);
  });

  it('matches JSON.stringify on edge values: empty arrays, undefined members and elements, unicode', () => {
    const document = { a: [], b: undefined, c: [undefined, 1, 'é\u2028'], d: { e: [] }, f: null, '"k"': 0 };
    const { bytes, fileText } = serialise(document);
    expect(bytes.toString('utf8')).toBe(JSON.stringify(document));
    expect(JSON.parse(fileText)).toEqual(JSON.parse(JSON.stringify(document)));
  });
});
