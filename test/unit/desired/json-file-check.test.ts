import { describe, expect, it } from 'vitest';
import { isJsonFile, jsonCheckKey, notJsonProblem } from '../../../src/desired/json-file-check.js';

const WHY = 'a .json file is read as JSON, as jq and the API read it; name it .yaml to write YAML';

describe('.json files are read as JSON', () => {
  it('knows a .json file by its name, in any case', () => {
    expect(isJsonFile('dashboards/a.json')).toBe(true);
    expect(isJsonFile('A.JSON')).toBe(true);
    expect(isJsonFile('a.yaml')).toBe(false);
    expect(isJsonFile('a.json.yaml')).toBe(false);
  });

  it('accepts JSON, with or without a byte-order mark', () => {
    expect(notJsonProblem('{"a": [1, 2]}\n')).toBeUndefined();
    expect(notJsonProblem('\ufeff{"a": 1}')).toBeUndefined();
  });

  it('refuses what only YAML reads, where JSON stops, saying what is there', () => {
    expect(notJsonProblem('{"a": 1,\n "b": [],}\n')).toEqual({ ok: false, problems: [{ line: 2, col: 9, path: '', message: `not valid JSON: a trailing comma (${WHY})` }] });
    // After a byte-order mark the position is the file's own.
    expect(notJsonProblem('\ufeff{"a": 1,}')).toMatchObject({ problems: [{ line: 1, col: 9 }] });
    // Node 20 names no position for these two, and quoted the text around them.
    expect(notJsonProblem('{\n  "a": \'x\'\n}')).toMatchObject({ problems: [{ line: 2, col: 8, message: `not valid JSON: a single-quoted string (${WHY})` }] });
    // A trailing comma is named where it is, not at the bracket on the line below.
    expect(notJsonProblem('{"t": [1,\n]}')).toMatchObject({ problems: [{ line: 1, col: 9, message: `not valid JSON: a trailing comma (${WHY})` }] });
    expect(notJsonProblem('{"a": 1} # note')).toMatchObject({ problems: [{ line: 1, col: 10, message: expect.stringContaining('a comment') }] });
  });

  it('places a text that ends too soon at its end, and leaves one nested too deeply to the YAML checks', () => {
    expect(notJsonProblem('{"a": [1,\n')).toMatchObject({ problems: [{ line: 2, col: 1, message: `not valid JSON: the text ends before the JSON does (${WHY})` }] });
    expect(notJsonProblem(`${'['.repeat(5000)}${']'.repeat(4999)}`)).toBeUndefined();
  });

  it('keys a .json file\'s check apart from the same text\'s as YAML, as 32 bytes of hex', () => {
    const hash = 'ab'.repeat(32);
    expect(jsonCheckKey(hash)).toMatch(/^[0-9a-f]{64}$/);
    expect(jsonCheckKey(hash)).not.toBe(hash);
    expect(jsonCheckKey(hash)).toBe(jsonCheckKey(hash));
    expect(jsonCheckKey('cd'.repeat(32))).not.toBe(jsonCheckKey(hash));
  });
});
