/** True when `error` is a Node system error with this errno code (`ENOENT`, `EEXIST`, …). */
export function isCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}

/** For `.catch()` after a removal: a file already gone is what the caller wanted; anything else is rethrown. */
export function ignoreMissing(error: unknown): void {
  if (!isCode(error, 'ENOENT')) throw error;
}

/** A resource of the machine that ran out: nothing is wrong with the request or the data, so it may be retried later. */
export interface Exhaustion {
  readonly resource: 'disk space' | 'file descriptors';
  /** The errno code that said so (`ENOSPC`, `EMFILE`, …). */
  readonly code: string;
}

const EXHAUSTED: Readonly<Record<string, Exhaustion['resource']>> = {
  ENOSPC: 'disk space',
  EDQUOT: 'disk space',
  EMFILE: 'file descriptors',
  ENFILE: 'file descriptors',
};

/** The exhaustion behind `error` or any error in its `cause` chain, if that is what it is. */
export function exhaustionOf(error: unknown): Exhaustion | undefined {
  for (let current = error, depth = 0; typeof current === 'object' && current !== null && depth < 8; depth++) {
    const code = (current as { code?: unknown }).code;
    const resource = typeof code === 'string' ? EXHAUSTED[code] : undefined;
    if (resource !== undefined && typeof code === 'string') return { resource, code };
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
