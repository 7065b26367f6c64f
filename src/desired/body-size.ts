import { BODY_LIMIT_BYTES } from '../schema/limits.js';
import type { FileCheck, Problem } from './dashboard-rules.js';

/**
 * What a write adds to the file's own members: the id (when derived from the path) and the ownership tag. A fixed
 * allowance keeps the check a property of the file's text alone, so it runs on a worker and is cached with the rest.
 */
const WRITE_ALLOWANCE_BYTES = 256;

/**
 * A dashboard the target would refuse with 413 fails where it is written: validate and plan report it with its size
 * and the limit, instead of apply failing on it after other dashboards were written.
 */
export function withBodySizeCheck(check: FileCheck, limit = BODY_LIMIT_BYTES, aliasFreeSourceLength?: number): FileCheck {
  if (!check.ok) return check;
  if (aliasFreeSourceLength !== undefined && fitsByLength(aliasFreeSourceLength, limit)) return check;
  const problem = bodySizeProblem(check.value, limit);
  if (problem === undefined) return check;
  return { ok: false, problems: [problem], ...(check.warnings ? { warnings: check.warnings } : {}) };
}

/**
 * Without aliases, one character of YAML or JSON text becomes at most 6 bytes of the JSON apply sends (`"\0"` or a
 * control character escaped as `\u0000`; keys, quotes and nulls for empty values grow less), so a file whose text
 * fits six times over needs no serialisation to know it fits: most of this check's cost on a folder of ordinary files.
 */
const MAX_JSON_BYTES_PER_SOURCE_CHAR = 6;

function fitsByLength(sourceLength: number, limit: number): boolean {
  return sourceLength * MAX_JSON_BYTES_PER_SOURCE_CHAR + WRITE_ALLOWANCE_BYTES <= limit;
}

function bodySizeProblem(value: Record<string, unknown>, limit: number): Problem | undefined {
  const message = bodySizeMessage(value, limit);
  return message === undefined ? undefined : { line: 1, col: 1, path: '', message };
}

/** Why a dashboard (the file's value, or one environment's rendering of it) is too large to write; undefined when it is not. */
export function bodySizeMessage(value: Record<string, unknown>, limit = BODY_LIMIT_BYTES): string | undefined {
  const { metadata: _serverOwned, ...body } = value;
  const bytes = Buffer.byteLength(JSON.stringify(body)) + WRITE_ALLOWANCE_BYTES;
  if (bytes <= limit) return undefined;
  return `too large for the target: ${formatBytes(bytes)} as the JSON apply sends, over the target's request limit of ${formatBytes(limit)}; split it into smaller dashboards`;
}

/** `1,234,567 bytes (1.18 MiB)`: the exact figure to compare, the rounded one to read. */
function formatBytes(bytes: number): string {
  return `${bytes.toLocaleString('en-US')} bytes (${(bytes / (1024 * 1024)).toFixed(2)} MiB)`;
}
