import { describe, expect, it } from 'vitest';
import { withDocumentId, withId } from '../../../src/desired/id-edit.js';

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

describe('withDocumentId (dashcd pin on a platform dashboard or notebook file)', () => {
  const DOC_ID = 'team-checkout-0123456789abc';

  it('inserts id first in the document: block, at its indentation, keeping comments', () => {
    expect(withDocumentId('# Checkout\ndocument:\n  kind: dashboard # the app\n  name: Checkout\nversion: 21\ntiles: {}\nlayouts: {}\n', DOC_ID)).toBe(
      `# Checkout\ndocument:\n  id: ${DOC_ID}\n  kind: dashboard # the app\n  name: Checkout\nversion: 21\ntiles: {}\nlayouts: {}\n`,
    );
    expect(withDocumentId('version: "7"\nsections: []\ndocument:\n    # ours\n    kind: notebook\n    name: T\n', DOC_ID)).toBe(
      `version: "7"\nsections: []\ndocument:\n    # ours\n    id: ${DOC_ID}\n    kind: notebook\n    name: T\n`,
    );
  });

  it('writes JSON syntax into a JSON file, on its own line like the keys after it, or on the same line', () => {
    expect(withDocumentId('{\n  "document": {\n    "kind": "notebook",\n    "name": "T"\n  },\n  "sections": []\n}\n', DOC_ID)).toBe(
      `{\n  "document": {\n    "id": "${DOC_ID}",\n    "kind": "notebook",\n    "name": "T"\n  },\n  "sections": []\n}\n`,
    );
    expect(withDocumentId('{"document": {"kind": "notebook", "name": "T"}, "sections": []}', DOC_ID)).toBe(`{"document": { "id": "${DOC_ID}","kind": "notebook", "name": "T"}, "sections": []}`);
  });

  it('leaves a top-level id and ids inside the content alone', () => {
    expect(withDocumentId('id: other\ndocument:\n  kind: notebook\n  name: T\nsections:\n  - id: s1\n', DOC_ID)).toBe(
      `id: other\ndocument:\n  id: ${DOC_ID}\n  kind: notebook\n  name: T\nsections:\n  - id: s1\n`,
    );
  });

  it('fills an empty document.id in place', () => {
    expect(withDocumentId('document:\n  kind: notebook\n  id: ""\n  name: T\n', DOC_ID)).toBe(`document:\n  kind: notebook\n  id: ${DOC_ID}\n  name: T\n`);
  });

  it('refuses a file without a document: mapping, and an edit that would change anything but document.id', () => {
    expect(() => withDocumentId('- a\n', DOC_ID)).toThrow('pinIds: the file is not a mapping');
    expect(() => withDocumentId('tiles: {}\n', DOC_ID)).toThrow('pinIds: document: is not a mapping');
    expect(() => withDocumentId('document: notebook\n', DOC_ID)).toThrow('pinIds: document: is not a mapping');
    // The empty id is an anchor another member aliases: filling it would change that member too.
    expect(() => withDocumentId('document:\n  id: &empty ""\n  kind: notebook\n  name: T\ndescription: *empty\n', DOC_ID)).toThrow(
      'pinIds: inserting the id would change the dashboard; file left unchanged',
    );
    expect(() => withDocumentId('document:\n  id: &empty ""\n  kind: notebook\n  name: T\n  description: *empty\n', DOC_ID)).toThrow(
      'pinIds: inserting the id would change the dashboard; file left unchanged',
    );
  });
});
