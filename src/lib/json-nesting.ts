import { CLOSE_BRACE, CLOSE_BRACKET, OPEN_BRACE, OPEN_BRACKET, QUOTE } from './json-chars.js';
import { JsonScanError, skipString } from './json-split.js';

/**
 * Whether the JSON `text` opens an object or array deeper than `maxDepth`, the value itself being depth 1. Counted on
 * the text before it is parsed, strings skipped as the shared scanners skip them: V8's JSON.parse takes any depth
 * (16 MiB of `[` cost it 3 s and 490 MB), but what reads the value after it (zod, the plan's diff, the YAML writer)
 * recurses once per level. A text that is not JSON may pass: JSON.parse refuses it next.
 *
 * The client's guard on what a target answers (client/response.ts): a count, not the servers' full syntax and key
 * check (server/http/json-guard.ts), since JSON.parse judges the rest of a target's text.
 */
export function nestsDeeperThan(text: string, maxDepth: number): boolean {
  let depth = 0;
  try {
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code === QUOTE) {
        i = skipString(text, i) - 1;
      } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
        depth += 1;
        if (depth > maxDepth) return true;
      } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
        depth -= 1;
      }
    }
  } catch (error) {
    // An unterminated string: not JSON at all.
    if (error instanceof JsonScanError) return false;
    throw error;
  }
  return false;
}
