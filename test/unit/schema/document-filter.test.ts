import { describe, expect, it } from 'vitest';
import { FilterError, parseFilter } from '../../../src/schema/document-filter.js';
import { compileFilter, type FilterSubject } from '../../../src/schema/document-filter-match.js';

const doc = (over: Partial<FilterSubject> & Pick<FilterSubject, 'id'>): FilterSubject => ({
  name: 'My Dashboard',
  type: 'dashboard',
  version: 1,
  owner: 'owner-a',
  modificationInfo: { createdBy: 'owner-a', createdTime: '2024-03-01T10:00:00.000Z', lastModifiedBy: 'owner-b', lastModifiedTime: '2024-06-01T10:00:00.000Z' },
  originAppId: null,
  originExtensionId: null,
  ...over,
});

const DOCS: FilterSubject[] = [
  doc({ id: 'ops-dash', name: 'Ops overview', version: 3 }),
  doc({ id: '0b4e3c5a-1d2f-4a6b-8c9d-0e1f2a3b4c5d', name: 'Generated', type: 'notebook', version: 1 }),
  doc({ id: 'launch-1', name: "It's a pad", type: 'launchpad', owner: 'owner-b', version: 7 }),
  doc({ id: 'ready-made', name: 'From an app', originAppId: 'dynatrace.kubernetes', version: 2 }),
  doc({ id: 'old-one', name: 'Old', modificationInfo: { createdBy: 'x', createdTime: '2020-01-01T00:00:00Z', lastModifiedBy: 'x', lastModifiedTime: '2020-01-02T00:00:00Z' } }),
];

const ids = (filter: string): string[] => DOCS.filter(compileFilter(filter)).map((d) => d.id);

describe('document filter: the filters real tools send', () => {
  it("Monaco's download: type=='dashboard'", () => {
    expect(ids("type=='dashboard'")).toEqual(['ops-dash', 'ready-made', 'old-one']);
  });

  it("Monaco's delete-all: type='dashboard' or type='notebook' or type='launchpad'", () => {
    expect(ids("type='dashboard' or type='notebook' or type='launchpad'")).toEqual(DOCS.map((d) => d.id));
  });

  it("Terraform's export: not (originAppId exists) and not (originExtensionId exists) and type in (…)", () => {
    expect(ids("not (originAppId exists) and not (originExtensionId exists) and type in ('dashboard', 'notebook', 'launchpad')")).toEqual([
      'ops-dash',
      '0b4e3c5a-1d2f-4a6b-8c9d-0e1f2a3b4c5d',
      'launch-1',
      'old-one',
    ]);
  });
});

describe('document filter: operators', () => {
  it('= and == are case-sensitive equality, != its negation', () => {
    expect(ids("name = 'ops overview'")).toEqual([]);
    expect(ids("name == 'Ops overview'")).toEqual(['ops-dash']);
    expect(ids("type != 'dashboard'")).toEqual(['0b4e3c5a-1d2f-4a6b-8c9d-0e1f2a3b4c5d', 'launch-1']);
  });

  it('contains, starts-with and ends-with ignore case', () => {
    expect(ids("name contains 'OVER'")).toEqual(['ops-dash']);
    expect(ids("name starts-with 'ops'")).toEqual(['ops-dash']);
    expect(ids("name ends-with 'PAD'")).toEqual(['launch-1']);
  });

  it('contains/starts-with/ends-with on id match custom ids only, never generated UUIDs', () => {
    expect(ids("id contains '-'")).toEqual(['ops-dash', 'launch-1', 'ready-made', 'old-one']);
    expect(ids("id starts-with '0b4e'")).toEqual([]);
    expect(ids("id = '0b4e3c5a-1d2f-4a6b-8c9d-0e1f2a3b4c5d'")).toEqual(['0b4e3c5a-1d2f-4a6b-8c9d-0e1f2a3b4c5d']);
  });

  it('version compares as a number, quoted or not', () => {
    expect(ids('version > 2')).toEqual(['ops-dash', 'launch-1']);
    expect(ids("version >= '3'")).toEqual(['ops-dash', 'launch-1']);
    expect(ids('version < 2')).toEqual(['0b4e3c5a-1d2f-4a6b-8c9d-0e1f2a3b4c5d', 'old-one']);
    expect(ids('version <= 1 and type = \'dashboard\'')).toEqual(['old-one']);
    expect(ids('version in (2, 7)')).toEqual(['launch-1', 'ready-made']);
  });

  it('times compare as instants, whatever their RFC 3339 spelling', () => {
    expect(ids("modificationInfo.lastModifiedTime < '2021-01-01T00:00:00+00:00'")).toEqual(['old-one']);
    expect(ids("modificationInfo.createdTime >= '2024-03-01T11:00:00+01:00'")).toEqual(['ops-dash', '0b4e3c5a-1d2f-4a6b-8c9d-0e1f2a3b4c5d', 'launch-1', 'ready-made']);
  });

  it('and binds tighter than or; parentheses and not change it', () => {
    expect(ids("type = 'launchpad' or type = 'notebook' and version > 5")).toEqual(['launch-1']);
    expect(ids("(type = 'launchpad' or type = 'notebook') and version > 5")).toEqual(['launch-1']);
    expect(ids("not (type = 'dashboard' or owner = 'owner-b')")).toEqual(['0b4e3c5a-1d2f-4a6b-8c9d-0e1f2a3b4c5d']);
    expect(ids("NOT type = 'dashboard' AND owner = 'owner-b'")).toEqual(['launch-1']);
  });

  it('a null field exists not and equals nothing, but != anything', () => {
    expect(ids('originAppId exists')).toEqual(['ready-made']);
    expect(ids("originAppId = 'dynatrace.kubernetes'")).toEqual(['ready-made']);
    expect(ids("originAppId != 'dynatrace.kubernetes'")).toEqual(['ops-dash', '0b4e3c5a-1d2f-4a6b-8c9d-0e1f2a3b4c5d', 'launch-1', 'old-one']);
    expect(ids("originExtensionId contains 'x'")).toEqual([]);
  });

  it("quotes: \\' is a quote and \\\\ a backslash inside a string", () => {
    expect(ids("name = 'It\\'s a pad'")).toEqual(['launch-1']);
    expect(parseFilter("name = 'a\\\\b'")).toEqual({ kind: 'compare', field: 'name', op: '=', value: 'a\\b' });
  });

  it('parses to a tree', () => {
    expect(parseFilter("type in ('a','b') or not name exists")).toEqual({
      kind: 'or',
      left: { kind: 'in', field: 'type', values: ['a', 'b'] },
      right: { kind: 'not', operand: { kind: 'exists', field: 'name' } },
    });
  });
});

describe('document filter: errors', () => {
  const cases: Array<[string, RegExp]> = [
    ["title = 'x'", /Unknown field 'title'.*the fields are id, name/],
    ["modificationInfo.foo = 'x'", /Unknown field 'modificationInfo\.foo'/],
    ["name = 'x", /not closed/],
    ['name = x', /Expected a single-quoted string or a number/],
    ["name 'x'", /Expected an operator after 'name'/],
    ["name = 'x' and", /ends where a field name was expected/],
    ["name = 'x')", /Unexpected '\)'/],
    ["(name = 'x'", /ends where '\)' was expected/],
    ["name in 'x'", /Expected '\('/],
    ["name = 'x' # 1", /Unexpected character '#'/],
    ["version = 'three'", /'version' compares with a number/],
    ['name = 3', /'name' compares with a single-quoted string/],
    ["modificationInfo.createdTime > 'yesterday'", /compares with a time/],
    ["version contains '1'", /applies to text fields only/],
    ["((((name = 'x'))))", /nest at most 3/],
    ['', /ends where a field name was expected/],
  ];
  it.each(cases)('%s', (filter, message) => {
    expect(() => compileFilter(filter)).toThrow(FilterError);
    expect(() => compileFilter(filter)).toThrow(message);
  });

  it('allows three levels of parentheses, and refuses filters over 1024 characters', () => {
    expect(ids("(((name = 'Old')))")).toEqual(['old-one']);
    expect(() => compileFilter(`name = '${'x'.repeat(1020)}'`)).toThrow(/at most 1024/);
  });
});
