import { FilterError, parseFilter, type FilterField, type FilterNode, type FilterValue } from './document-filter.js';
import { isUuid, type DocumentMetadata } from './documents.js';

/** What a filter reads of a document: its metadata (the access list aside). */
export type FilterSubject = Pick<DocumentMetadata, 'id' | 'name' | 'type' | 'version' | 'owner' | 'modificationInfo' | 'originAppId' | 'originExtensionId'>;

export type DocumentPredicate = (document: FilterSubject) => boolean;

type FieldKind = 'text' | 'number' | 'time';

const FIELD_KINDS: Readonly<Record<FilterField, FieldKind>> = {
  id: 'text',
  name: 'text',
  type: 'text',
  version: 'number',
  owner: 'text',
  'modificationInfo.createdTime': 'time',
  'modificationInfo.createdBy': 'text',
  'modificationInfo.lastModifiedTime': 'time',
  'modificationInfo.lastModifiedBy': 'text',
  originAppId: 'text',
  originExtensionId: 'text',
};

/**
 * Parses and type-checks a filter into a predicate: `version` compares as a number, the times as instants (an
 * RFC 3339 string), the rest as strings. `=`/`!=`/`in` are case-sensitive, `contains`/`starts-with`/`ends-with` are
 * not, and on `id` those three match custom ids only (the service says so of generated UUIDs). A field that is null
 * (`originAppId` of a user document) satisfies only `!=` and `not … exists`. Throws FilterError.
 */
export function compileFilter(text: string): DocumentPredicate {
  const tree = parseFilter(text);
  check(tree);
  return (document) => matches(tree, document);
}

function check(node: FilterNode): void {
  switch (node.kind) {
    case 'and':
    case 'or':
      check(node.left);
      check(node.right);
      return;
    case 'not':
      check(node.operand);
      return;
    case 'compare':
      comparable(node.field, node.value);
      return;
    case 'in':
      for (const value of node.values) comparable(node.field, value);
      return;
    case 'text':
      if (FIELD_KINDS[node.field] !== 'text') throw new FilterError(`'${node.op}' applies to text fields only, not to '${node.field}'.`);
      return;
    case 'exists':
      return;
  }
}

/** The value as the field compares it; throws FilterError when it cannot be (a name against a number). */
function comparable(field: FilterField, value: FilterValue): string | number {
  const kind = FIELD_KINDS[field];
  if (kind === 'number') {
    const number = typeof value === 'number' ? value : Number(value);
    if (value === '' || !Number.isFinite(number)) throw new FilterError(`'${field}' compares with a number, not '${value}'.`);
    return number;
  }
  if (typeof value !== 'string') throw new FilterError(`'${field}' compares with a single-quoted string, not ${value}.`);
  if (kind === 'time') {
    const instant = Date.parse(value);
    if (Number.isNaN(instant)) throw new FilterError(`'${field}' compares with a time such as '2024-01-31T12:00:00Z', not '${value}'.`);
    return instant;
  }
  return value;
}

function actualOf(document: FilterSubject, field: FilterField): string | number | null {
  switch (field) {
    case 'modificationInfo.createdTime':
      return Date.parse(document.modificationInfo.createdTime);
    case 'modificationInfo.lastModifiedTime':
      return Date.parse(document.modificationInfo.lastModifiedTime);
    case 'modificationInfo.createdBy':
      return document.modificationInfo.createdBy;
    case 'modificationInfo.lastModifiedBy':
      return document.modificationInfo.lastModifiedBy;
    default:
      return document[field] ?? null;
  }
}

function matches(node: FilterNode, document: FilterSubject): boolean {
  switch (node.kind) {
    case 'and':
      return matches(node.left, document) && matches(node.right, document);
    case 'or':
      return matches(node.left, document) || matches(node.right, document);
    case 'not':
      return !matches(node.operand, document);
    case 'exists':
      return actualOf(document, node.field) !== null;
    case 'in':
      return node.values.some((value) => actualOf(document, node.field) === comparable(node.field, value));
    case 'text':
      return textMatches(node.op, node.field, actualOf(document, node.field), node.value);
    case 'compare':
      return compares(node.op, actualOf(document, node.field), comparable(node.field, node.value));
  }
}

function textMatches(op: 'contains' | 'starts-with' | 'ends-with', field: FilterField, actual: string | number | null, value: string): boolean {
  if (typeof actual !== 'string' || (field === 'id' && isUuid(actual))) return false;
  const haystack = actual.toLowerCase();
  const needle = value.toLowerCase();
  if (op === 'contains') return haystack.includes(needle);
  return op === 'starts-with' ? haystack.startsWith(needle) : haystack.endsWith(needle);
}

function compares(op: '=' | '!=' | '<' | '<=' | '>' | '>=', actual: string | number | null, expected: string | number): boolean {
  if (op === '!=') return actual !== expected;
  if (actual === null) return false;
  switch (op) {
    case '=':
      return actual === expected;
    case '<':
      return actual < expected;
    case '<=':
      return actual <= expected;
    case '>':
      return actual > expected;
    case '>=':
      return actual >= expected;
  }
}
