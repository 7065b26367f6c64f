import { Dashboard } from '../../schema/dashboard.js';
import type { ConstraintViolation } from '../../schema/error-envelope.js';
import { parseDashboardId, type DashboardId } from '../../schema/ids.js';
import { HttpError } from '../http/http-error.js';
import { decodeJsonBytes, parseJsonDocument } from '../http/read-body.js';
import { prepareDashboard, type DashboardBody, type PreparedDashboard } from '../store/dashboard-document.js';

/** A create body (POST, POST validator) or a replace body for one id (PUT, PUT validator). */
export type BodyTarget = { readonly mode: 'create' } | { readonly mode: 'replace'; readonly id: DashboardId };

/** Parses a path id; anything but a UUID is the real service's 400 and never reaches the filesystem. */
export function parsePathId(raw: string | undefined): DashboardId {
  const id = raw === undefined ? undefined : parseDashboardId(raw);
  if (id) return id;
  throw HttpError.constraints([{ path: 'id', message: 'Not a valid UUID.', parameterLocation: 'PATH', location: null }]);
}

/** A request body's bytes to a dashboard ready to store: parse (with its guards), validate, serialise. */
export function prepareDashboardBody(bytes: Uint8Array, target: BodyTarget): PreparedDashboard {
  const { value, canonical } = parseJsonDocument(decodeJsonBytes(bytes));
  return prepareDashboard(validateDashboardBody(value, target), canonical);
}

/**
 * Validates a body against the shared Dashboard schema plus the id rules, reporting every problem in one 400.
 * Returns the caller's own object (not zod's output, which reorders keys): that is what gets stored.
 * `id: ""` and `id: null` count as "no id": real exports carry `"id": ""`, and re-posting an export must work.
 */
function validateDashboardBody(raw: unknown, target: BodyTarget): DashboardBody {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    const kind = raw === null ? 'null' : Array.isArray(raw) ? 'an array' : `a ${typeof raw}`;
    throw new HttpError(400, `Could not map JSON: the body must be a Dashboard object, not ${kind}.`);
  }
  const body = raw as Record<string, unknown>;
  refuseTooManyTiles(body['tiles']);
  const result = Dashboard.safeParse(body);
  const idProblem = checkBodyId(body['id'], target);
  // The id's problem first: it is listed however many the schema's are.
  const first: ConstraintViolation[] = idProblem ? [{ path: 'id', message: idProblem, parameterLocation: 'PAYLOAD_BODY', location: null }] : [];
  if (!result.success || idProblem) throw HttpError.fromIssues(result.success ? [] : result.error.issues, { first });
  return body;
}

/**
 * The most tiles a dashboard body may have. Not shown by the spec; real dashboards have tens (the corpus's largest,
 * 85). Checked before the schema: zod keeps every issue of a body until it is done, ~1 KB for a tile without a type,
 * and 300,000 empty tiles (900 KB, under the body limit) held 610 MB while the server checked them.
 */
const MAX_TILES = 10_000;

function refuseTooManyTiles(tiles: unknown): void {
  if (!Array.isArray(tiles) || tiles.length <= MAX_TILES) return;
  throw HttpError.constraints([
    { path: 'tiles', message: `A dashboard holds at most ${MAX_TILES.toLocaleString('en-US')} tiles; this one has ${tiles.length.toLocaleString('en-US')}.`, parameterLocation: 'PAYLOAD_BODY', location: null },
  ]);
}

function checkBodyId(id: unknown, target: BodyTarget): string | undefined {
  if (id === undefined || id === null || id === '' || typeof id !== 'string') return undefined;
  if (target.mode === 'create') return 'The body must not provide an id: the server assigns it (use PUT to choose one).';
  return parseDashboardId(id) === target.id ? undefined : `Must match the id in the path (${target.id}).`;
}
