import { describe, expect, it } from 'vitest';
import type { FilterSubject } from '../../../../src/schema/document-filter-match.js';
import { ListingViews, type SortKey, type ViewQuery } from '../../../../src/server/documents/listing-views.js';

type Doc = FilterSubject;

function doc(id: string, fields: Partial<Omit<Doc, 'id' | 'modificationInfo'>> = {}, lastModifiedTime = '2024-01-01T00:00:00Z'): Doc {
  return {
    id,
    name: 'same',
    type: 'note',
    version: 1,
    owner: 'alice',
    modificationInfo: { createdBy: 'alice', createdTime: '2024-01-01T00:00:00Z', lastModifiedBy: 'alice', lastModifiedTime },
    ...fields,
  };
}

/** A record source that counts how often its records are read (each read is a full sort). */
class Source {
  revision = 1;
  reads = 0;
  constructor(private readonly records: Doc[]) {}
  all(): Iterable<Doc> {
    this.reads += 1;
    return this.records;
  }
}

const everyone = (): boolean => true;

/** Runs listings on one cache, counting how often a query had to be prepared (its view was not held). */
function setup(records: Doc[]) {
  const source = new Source(records);
  const views = new ListingViews(source);
  let prepared = 0;
  const list = (keys: readonly SortKey[], filter?: string, predicate: (record: Doc) => boolean = everyone, scope = 'all'): string[] => {
    const sort = keys.map(({ field, descending }) => `${descending ? '-' : ''}${field}`).join(',');
    const prepare = (): ViewQuery => {
      prepared += 1;
      return { predicate, keys };
    };
    return views.matching(scope, everyone, filter, sort || undefined, prepare).map(({ id }) => id);
  };
  return { source, list, prepared: () => prepared };
}

const asc = (field: SortKey['field']): SortKey => ({ field, descending: false });
const desc = (field: SortKey['field']): SortKey => ({ field, descending: true });

describe('listing views: order', () => {
  it('breaks ties by id ascending, also under a descending key, whatever order the source holds them in', () => {
    const { list } = setup([doc('c', { name: 'x' }), doc('b', { name: 'y' }), doc('a', { name: 'x' }), doc('d', { name: 'y' })]);
    expect(list([asc('name')])).toEqual(['a', 'c', 'b', 'd']);
    expect(list([desc('name')])).toEqual(['b', 'd', 'a', 'c']);
    expect(list([])).toEqual(['a', 'b', 'c', 'd']);
  });

  it('sorts by each key in turn: a later key orders only the ties of the earlier ones', () => {
    const records = [doc('a', { name: 'n2', type: 't1' }), doc('b', { name: 'n1', type: 't2' }), doc('c', { name: 'n1', type: 't1' }), doc('d', { name: 'n2', type: 't2' })];
    const { list } = setup(records);
    expect(list([desc('name'), asc('type')])).toEqual(['a', 'd', 'c', 'b']);
    expect(list([asc('type'), desc('name')])).toEqual(['a', 'c', 'd', 'b']);
  });

  it('puts null values first ascending and last descending, even before a value that reads as a negative number', () => {
    const { list } = setup([doc('a', { originAppId: 'app' }), doc('b', { originAppId: null }), doc('c', { originAppId: '-1' }), doc('d')]);
    expect(list([asc('originAppId')])).toEqual(['b', 'd', 'c', 'a']);
    expect(list([desc('originAppId')])).toEqual(['a', 'c', 'b', 'd']);
  });

  it('sorts numbers as numbers and modificationInfo fields by their value', () => {
    const records = [doc('a', { version: 10 }, '2024-03-01T00:00:00Z'), doc('b', { version: 9 }, '2024-01-01T00:00:00Z'), doc('c', { version: 2 }, '2024-02-01T00:00:00Z')];
    const { list } = setup(records);
    expect(list([asc('version')])).toEqual(['c', 'b', 'a']);
    expect(list([desc('modificationInfo.lastModifiedTime')])).toEqual(['a', 'c', 'b']);
    expect(list([asc('modificationInfo.lastModifiedTime')])).toEqual(['b', 'c', 'a']);
  });
});

describe('listing views: caching', () => {
  it('answers a repeated listing from its view, and another filter on a held sort without sorting again', () => {
    const { source, list, prepared } = setup([doc('b', { name: 'x' }), doc('a', { name: 'y' })]);
    expect(list([asc('name')])).toEqual(['b', 'a']);
    expect(list([asc('name')])).toEqual(['b', 'a']);
    expect([prepared(), source.reads]).toEqual([1, 1]);
    // Another filter on the same sort: prepared (it is a new view) but filtered from the held sort.
    expect(list([asc('name')], 'name = "y"', (record) => record.name === 'y')).toEqual(['a']);
    expect([prepared(), source.reads]).toEqual([2, 1]);
  });

  it('keeps each sort apart: another sort in the same revision is sorted afresh', () => {
    const { source, list } = setup([doc('a', { name: 'n2', version: 1 }), doc('b', { name: 'n1', version: 2 })]);
    expect(list([asc('name')])).toEqual(['b', 'a']);
    expect(list([asc('version')])).toEqual(['a', 'b']);
    expect(list([desc('version')])).toEqual(['b', 'a']);
    expect(source.reads).toBe(3);
  });

  it('keeps several views at once, not only the latest', () => {
    const { list, prepared } = setup([doc('a'), doc('b')]);
    list([], 'f1');
    list([], 'f2');
    list([], 'f1');
    expect(prepared()).toBe(2);
  });

  it('drops every view and sort when the revision moves', () => {
    const records = [doc('b', { name: 'x' }), doc('a', { name: 'y' })];
    const { source, list, prepared } = setup(records);
    list([asc('name')]);
    records.push(doc('c', { name: 'a' }));
    source.revision = 2;
    expect(list([asc('name')])).toEqual(['c', 'b', 'a']);
    expect([prepared(), source.reads]).toEqual([2, 2]);
  });

  it('holds 32 views, dropping the oldest for the 33rd', () => {
    const { source, list, prepared } = setup([doc('a'), doc('b')]);
    for (let i = 0; i <= 32; i += 1) list([], `f${i}`);
    expect(prepared()).toBe(33);
    list([], 'f1');
    expect(prepared()).toBe(33);
    list([], 'f0');
    expect(prepared()).toBe(34);
    // All of them filtered the one held sort.
    expect(source.reads).toBe(1);
  });
});
