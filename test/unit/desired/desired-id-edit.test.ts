import { describe, expect, it } from 'vitest';
import { withId } from '../../../src/desired/id-edit.js';

const ID = 'e9b0cf89-f448-573e-8aed-164bb79aa8c7';

describe('withId (the edit behind dashcd pin)', () => {
  it('inserts an id line before the first key, after leading comments and document markers', () => {
    expect(withId('# CPU board\ndashboardMetadata:\n  name: CPU\n  owner: ops\ntiles: []\n', ID)).toBe(
      `# CPU board\nid: ${ID}\ndashboardMetadata:\n  name: CPU\n  owner: ops\ntiles: []\n`,
    );
    expect(withId('---\ntiles: []\ndashboardMetadata: {name: n, owner: o}\n', ID)).toBe(`---\nid: ${ID}\ntiles: []\ndashboardMetadata: {name: n, owner: o}\n`);
  });

  it('keeps the indentation of an indented root mapping', () => {
    expect(withId('---\n  tiles: []\n  dashboardMetadata: {name: n, owner: o}\n', ID)).toBe(`---\n  id: ${ID}\n  tiles: []\n  dashboardMetadata: {name: n, owner: o}\n`);
  });

  it('fills an empty id in place: "", null, or nothing after the colon', () => {
    expect(withId('id: ""\ntiles: []\n', ID)).toBe(`id: ${ID}\ntiles: []\n`);
    expect(withId('id: null # derive\ntiles: []\n', ID)).toBe(`id: ${ID} # derive\ntiles: []\n`);
    expect(withId('id:\ntiles: []\n', ID)).toBe(`id: ${ID}\ntiles: []\n`);
    expect(withId('tiles: []\nid:\n', ID)).toBe(`tiles: []\nid: ${ID}\n`);
  });

  it('writes JSON syntax into a flow (JSON) file, keeping its layout', () => {
    expect(withId('{"dashboardMetadata": {"name": "n", "owner": "o"}, "tiles": []}\n', ID)).toBe(
      `{ "id": "${ID}","dashboardMetadata": {"name": "n", "owner": "o"}, "tiles": []}\n`,
    );
    expect(withId('{\n  "dashboardMetadata": {"name": "n", "owner": "o"},\n  "tiles": []\n}\n', ID)).toBe(
      `{\n  "id": "${ID}",\n  "dashboardMetadata": {"name": "n", "owner": "o"},\n  "tiles": []\n}\n`,
    );
    expect(withId('{"id": "", "tiles": []}\n', ID)).toBe(`{"id": "${ID}", "tiles": []}\n`);
    expect(withId('{"tiles": [], "id": null}\n', ID)).toBe(`{"tiles": [], "id": "${ID}"}\n`);
  });

  it('fills an empty id whose key has a space before the colon', () => {
    expect(withId('id :\ntiles: []\n', ID)).toBe(`id : ${ID}\ntiles: []\n`);
  });

  it('inserts into an empty flow mapping, on one line or two', () => {
    expect(withId('{}\n', ID)).toBe(`{ "id": "${ID}",}\n`);
    expect(withId('{\n}\n', ID)).toBe(`{ "id": "${ID}",\n}\n`);
  });

  it('indents a flow mapping\'s new first line like the first key, not like the blank lines before it', () => {
    expect(withId('{\n\n  "tiles": []\n}\n', ID)).toBe(`{\n  "id": "${ID}",\n\n  "tiles": []\n}\n`);
  });

  it('inserts before a root mapping whose first key is explicit (? on a line of its own)', () => {
    expect(withId('?\n  tiles\n: []\n', ID)).toBe(`id: ${ID}\n?\n  tiles\n: []\n`);
  });

  it('touches only the top-level id, not an id inside a tile', () => {
    expect(withId('tiles:\n  - id: x\n', ID)).toBe(`id: ${ID}\ntiles:\n  - id: x\n`);
  });

  it('refuses a file that is not a mapping, and an edit that would change anything but the id', () => {
    expect(() => withId('- a\n', ID)).toThrow('pinIds: the file is not a mapping');
    // The empty id is also an anchor other members alias: filling it would change them too.
    // A second id key: yaml keeps the last one, so filling the first would not pin the dashboard.
    expect(() => withId('id:\ntiles: []\nid:\n', ID)).toThrow('pinIds: inserting the id would change the dashboard; file left unchanged');
    // An id key with no value and no colon to write after ({id}, `? id`): the edit lands elsewhere and is refused.
    expect(() => withId('{id, tiles: []}\n', ID)).toThrow('pinIds: inserting the id would change the dashboard; file left unchanged');
    expect(() => withId('? id\ntiles: []\n', ID)).toThrow('pinIds: inserting the id would change the dashboard; file left unchanged');
    expect(() => withId('id: &empty ""\ndashboardMetadata:\n  name: n\n  owner: *empty\ntiles: []\n', ID)).toThrow(
      'pinIds: inserting the id would change the dashboard; file left unchanged',
    );
  });
});
