import { hash } from 'node:crypto';

/**
 * Texts a target named, each remembered by its SHA-256 digest, not kept: a cursor or page key is the target's text,
 * of any length, and one cut from its page would keep the whole page alive. For telling a chain that goes round in a
 * loop (the events feed's cursors, the Document service's page keys) from one that goes on.
 */
export interface SeenTexts {
  has(text: string): boolean;
  /** Remembers `text`; false when it was already seen (one digest, where has-then-add took two). */
  add(text: string): boolean;
}

export function seenTexts(): SeenTexts {
  const digests = new Set<string>();
  const digest = (text: string): string => hash('sha256', text, 'binary');
  return {
    has: (text) => digests.has(digest(text)),
    add(text) {
      const key = digest(text);
      if (digests.has(key)) return false;
      digests.add(key);
      return true;
    },
  };
}
