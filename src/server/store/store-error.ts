/** Stable codes for store failures, so callers branch on `code`, never on message text. */
export type StoreErrorCode = 'STORE_CLOSED' | 'STORE_IO';

export class StoreError extends Error {
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoreError';
  }
}
