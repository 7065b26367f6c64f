import { createHash } from 'node:crypto';
import { firstJsonError } from '../lib/json-error.js';
import { sourceLinePos } from './source-line-pos.js';
import type { PackedCheck } from './packed-check.js';
import { flowNestingOffset } from './yaml-hazards.js';

/** A file named `.json` is read as JSON; `.yaml` and `.yml` as YAML, of which JSON is a part. */
export function isJsonFile(name: string): boolean {
  return name.toLowerCase().endsWith('.json');
}

/**
 * A `.json` file that only YAML reads (a trailing comma, a comment, a single-quoted string): refused with JSON's own
 * complaint where it stops, as jq, an editor and the API's import would refuse it, rather than accepted as YAML.
 * Undefined for JSON, and for a text nested too deeply to parse here (the YAML checks say so).
 */
export function notJsonProblem(source: string): PackedCheck | undefined {
  if (flowNestingOffset(source) !== undefined) return undefined;
  // A byte-order mark is not part of JSON's text, but editors on Windows write one and the YAML reading allows it.
  const text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  try {
    JSON.parse(text);
    return undefined;
  } catch {
    // Found again to say where and what: V8 names no position for a single quote or a trailing comma in an array.
    // The two agree on what is JSON (json-error.property.test.ts).
    const found = firstJsonError(text);
    if (found === undefined) return undefined;
    const offset = found.offset + (text === source ? 0 : 1);
    return { ok: false, problems: [{ ...sourceLinePos(source, offset), path: '', message: `not valid JSON: ${found.reason} (${WHY})` }] };
  }
}

/** Why YAML's leniency is refused here, with what to do about it. */
const WHY = 'a .json file is read as JSON, as jq and the API read it; name it .yaml to write YAML';

/**
 * The check cache's key of a `.json` file: its check is not the same text's as YAML, so the key differs from the
 * content hash (and stays 32 bytes of hex, as the cache file stores keys).
 */
export function jsonCheckKey(contentHash: string): string {
  return createHash('sha256').update(`json:${contentHash}`).digest('hex');
}
