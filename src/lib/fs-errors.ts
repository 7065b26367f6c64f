/** True when `error` is a Node system error with this errno code (`ENOENT`, `EEXIST`, …). */
export function isCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}

/** For `.catch()` after a removal: a file already gone is what the caller wanted; anything else is rethrown. */
export function ignoreMissing(error: unknown): void {
  if (!isCode(error, 'ENOENT')) throw error;
}
