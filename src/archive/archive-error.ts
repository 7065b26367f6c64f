/**
 * Failures of the archive's own making, with a stable `code` to branch on. Errors from the feed (the fetchPage the
 * caller injects) pass through unchanged, so the CLI can map transport and API errors as everywhere else.
 */
export type ArchiveErrorCode =
  | 'BAD_EVENT'
  | 'BAD_PAGE'
  | 'BAD_CHECKPOINT'
  | 'LOCKED'
  | 'BAD_TIME';

export class ArchiveError extends Error {
  constructor(
    readonly code: ArchiveErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ArchiveError';
  }
}
