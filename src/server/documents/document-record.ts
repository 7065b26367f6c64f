import { z } from 'zod';
import { DeletionInfo, ModificationInfo } from '../../schema/documents.js';

/** Where a document's content lives: an immutable file in the store's content directory, and how it was sent. */
export const StoredContent = z.object({
  /** The file's name in the content directory (random hex plus `.bin`: never derived from input). */
  file: z.string().regex(/^[0-9a-f]{32}\.bin$/),
  contentType: z.string(),
  size: z.number().int().nonnegative(),
});
export type StoredContent = z.infer<typeof StoredContent>;

/**
 * One document as the store keeps it (`<id>.json`): the metadata without `access` (that depends on who asks), its
 * content's file, and `trashed` while it sits in the trash.
 */
export const StoredDocument = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  description: z.string().optional(),
  version: z.number().int().positive(),
  owner: z.string(),
  isPrivate: z.boolean(),
  modificationInfo: ModificationInfo,
  content: StoredContent,
  trashed: DeletionInfo.optional(),
});
export type StoredDocument = z.infer<typeof StoredDocument>;

export function serialiseRecord(record: StoredDocument): Buffer {
  return Buffer.from(JSON.stringify(record));
}
