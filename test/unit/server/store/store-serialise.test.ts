import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareDashboard, serialiseDocument, serialiseMembers, servedDocument } from '../../../../src/server/store/dashboard-document.js';
import { DashboardId } from '../../../../src/schema/ids.js';
import { CORPUS_DASHBOARDS_DIR } from '../../../helpers/corpus.js';

const ID = DashboardId.parse('66666666-aaaa-4bbb-8ccc-000000000001');
const corpus = readdirSync(CORPUS_DASHBOARDS_DIR)
  .filter((name) => name.endsWith('.json'))
  .map((name) => JSON.parse(readFileSync(join(CORPUS_DASHBOARDS_DIR, name), 'utf8')) as Record<string, unknown>);

/** What the stored document must be: server metadata and id first, then the body's members but its own id/metadata. */
function expectedDocument(body: Record<string, unknown>, version: number): Record<string, unknown> {
  const { id: _id, metadata: _metadata, ...own } = body;
  return { metadata: { clusterVersion: 'v', configurationVersions: [version], currentConfigurationVersions: [String(version)] }, id: ID, ...own };
}

describe('serialiseDocument: one pass gives the served bytes and the file', () => {
  it('serves exactly JSON.stringify of the document, and the file parses back to the same document', () => {
    expect(corpus.length).toBeGreaterThan(0);
    for (const body of corpus) {
      const document = expectedDocument(body, 3);
      const { bytes, file } = serialiseDocument(ID, 3, 'v', prepareDashboard(body));
      const fileText = file.toString('utf8');
      expect(bytes.toString('utf8')).toBe(JSON.stringify(document));
      expect(JSON.parse(fileText)).toEqual(JSON.parse(JSON.stringify(document)));
      // What a start-up load serves, made without the file.
      expect(servedDocument(ID, 3, 'v', prepareDashboard(body))).toEqual(bytes);
    }
  });

  it("replaces the body's own id and metadata, and keeps the list fields", () => {
    const body = { id: 'x', metadata: { configurationVersions: [9] }, dashboardMetadata: { name: 'n', owner: 'o', tags: ['a', 1, 'b'] } };
    const prepared = prepareDashboard(body);
    expect(prepared).toMatchObject({ name: 'n', owner: 'o', tags: ['a', 'b'] });
    expect(serialiseDocument(ID, 2, 'v', prepared).bytes.toString('utf8')).toBe(JSON.stringify(expectedDocument(body, 2)));
    expect(prepareDashboard({ dashboardMetadata: { name: 3 } })).toMatchObject({ name: '', owner: '', tags: [] });
  });

  it('serves only the server members when the body has none of its own', () => {
    const { bytes, file } = serialiseDocument(ID, 1, 'v', prepareDashboard({ id: ID }));
    const fileText = file.toString('utf8');
    expect(bytes.toString('utf8')).toBe(JSON.stringify(expectedDocument({}, 1)));
    expect(JSON.parse(fileText)).toEqual(expectedDocument({}, 1));
  });

  it('writes one member per line and one tile per line, so a changed tile is a one-line diff', () => {
    const tiles = [{ name: 'a', tileType: 'MARKDOWN' }, { name: 'b "quoted"\n', tileType: 'HEADER' }];
    const { file } = serialiseDocument(ID, 1, 'v', prepareDashboard({ dashboardMetadata: { name: 'd', owner: 'o' }, tiles }));
    const fileText = file.toString('utf8');
    const lines = fileText.split('\n');
    expect(lines[0]).toBe('{');
    expect(lines).toContain(`  "id": "${ID}",`);
    expect(lines).toContain('    {"name":"a","tileType":"MARKDOWN"},');
    expect(lines).toContain('    {"name":"b \\"quoted\\"\\n","tileType":"HEADER"}');
    expect(fileText.endsWith('}\n')).toBe(true);
  });

  it('matches JSON.stringify on edge values: empty arrays, undefined members and elements, unicode', () => {
    const members = { a: [], b: undefined, c: [undefined, 1, 'é\u2028'], d: { e: [] }, f: null, '"k"': 0 };
    const { compact, lines } = serialiseMembers(Object.entries(members));
    expect(`{${compact}}`).toBe(JSON.stringify(members));
    expect(JSON.parse(`{\n${lines}\n}`)).toEqual(JSON.parse(JSON.stringify(members)));
  });
});
