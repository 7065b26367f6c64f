import type { FilterField } from '../../schema/document-filter.js';
import type { FilterSubject } from '../../schema/document-filter-match.js';

export interface SortKey {
  readonly field: FilterField;
  readonly descending: boolean;
}

/** What a listing needs of its query, prepared (parsed and checked) only when its view is not held. */
export interface ViewQuery {
  readonly predicate: (record: FilterSubject) => boolean;
  readonly keys: readonly SortKey[];
}

/** Views kept per revision: a listing client pages through one or two at a time, so more only guards memory. */
const MAX_VIEWS = 32;
/** Sorts kept per revision, likewise. */
const MAX_ORDERS = 16;

/**
 * The records of a listing (the caller's scope, its filter and sort), in order, computed once per revision of the
 * records: a request then pages an array instead of filtering and sorting the whole store (at 1,000 documents the
 * sort alone took ~0.5 ms, most of the list's time). Every sort of all records is kept too, so another caller or
 * filter on the same sort only filters. Everything is dropped when the revision moves (any write).
 */
export class ListingViews<T extends FilterSubject> {
  private readonly views = new Map<string, readonly T[]>();
  private readonly orders = new Map<string, readonly T[]>();
  private revision: number | undefined;

  constructor(private readonly source: { readonly revision: number; all(): Iterable<T> }) {}

  /**
   * The records `include` lets through and the query's filter matches, in its sort's order. `scope` names `include`
   * (who asks, and which list); `prepare` parses the filter and sort texts, throwing for bad ones: a view is held only
   * for texts that parsed.
   */
  matching(scope: string, include: (record: T) => boolean, filter: string | undefined, sort: string | undefined, prepare: () => ViewQuery): readonly T[] {
    if (this.revision !== this.source.revision) {
      this.views.clear();
      this.orders.clear();
      this.revision = this.source.revision;
    }
    const name = JSON.stringify([scope, filter, sort]);
    let view = this.views.get(name);
    if (!view) {
      const { predicate, keys } = prepare();
      view = this.sorted(keys).filter((record) => include(record) && predicate(record));
      hold(this.views, name, view, MAX_VIEWS);
    }
    return view;
  }

  private sorted(keys: readonly SortKey[]): readonly T[] {
    const name = keys.map(({ field, descending }) => `${descending ? '-' : ''}${field}`).join(',');
    let order = this.orders.get(name);
    if (!order) {
      order = sortRecords(this.source.all(), keys);
      hold(this.orders, name, order, MAX_ORDERS);
    }
    return order;
  }
}

/** Adds an entry, dropping the oldest once `max` are held. */
function hold<V>(map: Map<string, V>, name: string, value: V, max: number): void {
  if (map.size >= max) map.delete(map.keys().next().value as string);
  map.set(name, value);
}

/** The records by `keys`, then by id (always last: a stable order that page keys can rely on). */
function sortRecords<T extends FilterSubject>(records: Iterable<T>, keys: readonly SortKey[]): T[] {
  const all = [...keys, { field: 'id' as const, descending: false }];
  // Each record's values read once, not on each of the n·log n comparisons.
  const decorated = Array.from(records, (record) => ({ record, values: all.map(({ field }) => sortValue(record, field)) }));
  decorated.sort((a, b) => {
    for (let i = 0; i < all.length; i += 1) {
      const order = compareValues(a.values[i] as SortValue, b.values[i] as SortValue);
      if (order !== 0) return (all[i] as SortKey).descending ? -order : order;
    }
    return 0;
  });
  return decorated.map(({ record }) => record);
}

type SortValue = string | number | null;

function sortValue(document: FilterSubject, field: FilterField): SortValue {
  if (field.startsWith('modificationInfo.')) return document.modificationInfo[field.slice('modificationInfo.'.length) as keyof FilterSubject['modificationInfo']];
  return (document[field as Exclude<FilterField, `modificationInfo.${string}`>] as SortValue | undefined) ?? null;
}

/** Nulls first; numbers as numbers, strings by code unit. */
function compareValues(a: SortValue, b: SortValue): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : 1;
}
