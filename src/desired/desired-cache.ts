import type { FileCheck } from './dashboard-rules.js';

/**
 * File checks by content hash, for callers that load the same folder again and again (the daemon): a file whose
 * bytes did not change is neither parsed nor validated again. Values are copied in and out, because callers own
 * the dashboards they get and may change them.
 */
export interface DesiredCache {
  get(contentHash: string): FileCheck | undefined;
  set(contentHash: string, check: FileCheck): void;
  readonly size: number;
}

/** Least recently used entries go first once `maxEntries` is reached (old versions of edited files). */
export function createDesiredCache({ maxEntries = 10_000 }: { maxEntries?: number } = {}): DesiredCache {
  const entries = new Map<string, FileCheck>();
  return {
    get(contentHash) {
      const check = entries.get(contentHash);
      if (check === undefined) return undefined;
      entries.delete(contentHash);
      entries.set(contentHash, check);
      return structuredClone(check);
    },
    set(contentHash, check) {
      entries.delete(contentHash);
      entries.set(contentHash, structuredClone(check));
      while (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
    },
    get size() {
      return entries.size;
    },
  };
}
