import { createHash } from 'node:crypto';
import { DOCUMENT_ID_MAX } from '../schema/documents.js';

/** Hex digits of the path's hash an id ends with: 13, one more than a UUID's last group, so no id is a UUID. */
const HASH_LENGTH = 13;
const SLUG_MAX = DOCUMENT_ID_MAX - HASH_LENGTH - 1;

/**
 * The id of a document file without `document.id`, from its path relative to the dashboards folder (`/`
 * separators), as classic dashboards derive theirs: every machine and OS agrees without a state file, and renaming
 * the file means a new document (`dashcd pin` writes the id to make a rename safe). The Document service takes ids
 * of letters, digits and dashes, at most 100, never a UUID: the id is the path as a readable slug (lower case,
 * accents dropped, the extension left out, at most 86 characters) then `-` and the first 13 hex digits of the
 * path's SHA-256. The hash keeps apart what the slug merges (`team/api.yaml`, `team-api.yaml`, `Team/API.json`,
 * paths in scripts the slug cannot spell); 13 digits after a dash can never be a UUID's 12-digit last group.
 * Fixed forever: changing it would give every unpinned document a new id.
 */
export function deriveDocumentId(relativePath: string): string {
  const hash = createHash('sha256').update(relativePath).digest('hex').slice(0, HASH_LENGTH);
  return `${slugOf(relativePath)}-${hash}`;
}

function slugOf(relativePath: string): string {
  const slug = relativePath
    .replace(/\.[^./]*$/, '')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, SLUG_MAX)
    // Runs are single dashes by now: only one can lead or trail (the cut may leave one).
    .replace(/^-|-$/g, '');
  return slug === '' ? 'document' : slug;
}
