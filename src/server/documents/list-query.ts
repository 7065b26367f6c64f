import { z } from 'zod';
import { FILTER_FIELDS, FilterError, type FilterField } from '../../schema/document-filter.js';
import { compileFilter, type FilterSubject } from '../../schema/document-filter-match.js';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from '../../schema/documents.js';
import { HttpError } from '../http/http-error.js';
import type { ListingViews, SortKey } from './listing-views.js';

const MAX_SORT_FIELDS = 5;

/**
 * A list request: `filter`, `sort` (comma-separated fields, `-` for descending, at most 5; by id when absent),
 * `page-size` (1–1000, default 20) and `page-key`. A page key carries the filter, sort, size and position of the
 * listing it continues, so the parameters sent beside it (Monaco sends the filter again) do not change it. Other
 * query parameters are ignored, as the service does (Monaco sends a misspelt `add-field`).
 */
interface Listing {
  readonly filter: string | undefined;
  readonly sort: string | undefined;
  readonly pageSize: number;
  readonly offset: number;
}

const PageKey = z.object({ f: z.string().optional(), s: z.string().optional(), n: z.number().int().min(1).max(PAGE_SIZE_MAX), o: z.number().int().min(0) });

export interface Page<T> {
  readonly items: T[];
  readonly totalCount: number;
  readonly nextPageKey: string | undefined;
}

/**
 * One page as the query asks, of the records `include` lets through (`scope` names it: who asks, which list), from
 * the listing's view; 400 for a bad filter, sort, page size or page key.
 */
export function listPage<T extends FilterSubject>(
  views: ListingViews<T>,
  scope: string,
  include: (record: T) => boolean,
  query: URLSearchParams,
  { sortable = true }: { sortable?: boolean } = {},
): Page<T> {
  const listing = listingOf(query, sortable);
  // Parsed only when no view holds this listing (a view is kept only once both parsed); the sort first, as its
  // error comes before the filter's.
  const matching = views.matching(scope, include, listing.filter, listing.sort, () => {
    const keys = parseSort(listing.sort);
    return { predicate: filterOf(listing.filter), keys };
  });
  const end = listing.offset + listing.pageSize;
  const nextPageKey = end < matching.length ? encodeKey({ ...listing, offset: end }) : undefined;
  return { items: matching.slice(listing.offset, end), totalCount: matching.length, nextPageKey };
}

function filterOf(filter: string | undefined): (record: FilterSubject) => boolean {
  if (filter === undefined || filter.trim() === '') return () => true;
  try {
    return compileFilter(filter);
  } catch (error) {
    if (error instanceof FilterError) throw new HttpError(400, `Invalid filter: ${error.message}`);
    throw error;
  }
}

function listingOf(query: URLSearchParams, sortable: boolean): Listing {
  const key = query.get('page-key');
  if (key !== null) return decodeKey(key);
  const rawSize = query.get('page-size');
  let pageSize = PAGE_SIZE_DEFAULT;
  if (rawSize !== null) {
    pageSize = Number(rawSize);
    if (!/^\d+$/.test(rawSize) || pageSize < 1 || pageSize > PAGE_SIZE_MAX) throw new HttpError(400, `page-size must be a whole number from 1 to ${PAGE_SIZE_MAX}, not '${rawSize.slice(0, 20)}'.`);
  }
  const sort = sortable ? (query.get('sort') ?? undefined) : undefined;
  return { filter: query.get('filter') ?? undefined, sort, pageSize, offset: 0 };
}

function encodeKey(listing: Listing): string {
  return Buffer.from(JSON.stringify({ f: listing.filter, s: listing.sort, n: listing.pageSize, o: listing.offset })).toString('base64url');
}

function decodeKey(key: string): Listing {
  try {
    const parsed = PageKey.parse(JSON.parse(Buffer.from(key, 'base64url').toString('utf8')));
    return { filter: parsed.f, sort: parsed.s, pageSize: parsed.n, offset: parsed.o };
  } catch {
    throw new HttpError(400, 'Invalid page-key: pass the nextPageKey of a previous page unchanged.');
  }
}

const SORTABLE: ReadonlySet<string> = new Set(FILTER_FIELDS);

function parseSort(sort: string | undefined): SortKey[] {
  if (sort === undefined) return [];
  const keys = sort.split(',').map((raw) => {
    const item = raw.trim();
    const descending = item.startsWith('-');
    const field = descending ? item.slice(1) : item;
    if (field === '') throw new HttpError(400, `Invalid sort '${sort.slice(0, 100)}': a blank field.`);
    if (!SORTABLE.has(field)) throw new HttpError(400, `Invalid sort: unknown field '${field.slice(0, 100)}'; the fields are ${FILTER_FIELDS.join(', ')}.`);
    return { field: field as FilterField, descending };
  });
  if (keys.length > MAX_SORT_FIELDS) throw new HttpError(400, `Invalid sort: at most ${MAX_SORT_FIELDS} fields.`);
  return keys;
}
