import {
  CreatedDashboard,
  DashboardList,
  LiveDashboard,
  type DashboardStub,
} from '../schema/dashboard.js';
import type { ConstraintViolation } from '../schema/error-envelope.js';
import type { ApiError, HttpMethod } from './errors.js';
import { parseEnvelope } from './messages.js';
import { parseBodyAs, unexpectedResponse, type TextResponse } from './response.js';

export type ValidationOutcome =
  | { readonly valid: true }
  | { readonly valid: false; readonly violations: ConstraintViolation[]; readonly message: string };

export interface DashboardsApi {
  list(filter?: { owner?: string; tags?: string[] }): Promise<DashboardStub[]>;
  /**
   * The dashboard exactly as the server sent it (checked as deep as LiveDashboard goes); undefined on 404. `signal`
   * abandons this read alone, retry waits included.
   */
  get(id: string, options?: { signal?: AbortSignal }): Promise<LiveDashboard | undefined>;
  /**
   * The same read, as the server's JSON text, for a caller that can often decide on the text alone; `parse()` gives
   * what `get` gives (and fails as it fails).
   */
  getText(id: string, options?: { signal?: AbortSignal }): Promise<LiveText | undefined>;
  create(body: unknown): Promise<CreatedDashboard>;
  /** Create-on-PUT: `created` on 201, `updated` on 204 (or 200). */
  put(id: string, body: unknown): Promise<'created' | 'updated'>;
  /** False on 404: already gone counts as done (as Monaco treats it). */
  remove(id: string): Promise<boolean>;
  validate(body: unknown, id?: string): Promise<ValidationOutcome>;
}

export interface LiveText {
  readonly text: string;
  parse(): LiveDashboard;
}

export interface RequestCore {
  request(
    method: HttpMethod,
    path: string,
    options?: { query?: URLSearchParams; body?: unknown; idempotent?: boolean; signal?: AbortSignal },
  ): Promise<TextResponse>;
  /** The ApiError for an answer the operation does not accept. */
  fail(response: TextResponse): ApiError;
  /** Takes the token out of a text the target wrote, before any message quotes it. */
  redact(text: string): string;
}

const DASHBOARDS = '/api/config/v1/dashboards';

function one(id: string): string {
  return `${DASHBOARDS}/${encodeURIComponent(id)}`;
}

export function createDashboardsApi(core: RequestCore): DashboardsApi {
  const getText: DashboardsApi['getText'] = async (id, options = {}) => {
    const response = await core.request('GET', one(id), options);
    if (response.status === 404) return undefined;
    if (response.status !== 200) throw core.fail(response);
    return { text: response.text, parse: () => parseBodyAs(response, LiveDashboard) };
  };
  return {
    async list(filter = {}) {
      const query = new URLSearchParams();
      if (filter.owner !== undefined) query.set('owner', filter.owner);
      for (const tag of filter.tags ?? []) query.append('tags', tag);
      const response = await core.request('GET', DASHBOARDS, { query });
      if (response.status !== 200) throw core.fail(response);
      return parseBodyAs(response, DashboardList).dashboards;
    },

    async get(id, options = {}) {
      return (await getText(id, options))?.parse();
    },

    getText,

    async create(body) {
      // POST is not idempotent: the retry policy only repeats it when the server cannot have acted on it.
      const response = await core.request('POST', DASHBOARDS, { body, idempotent: false });
      if (response.status !== 201 && response.status !== 200) throw core.fail(response);
      return parseBodyAs(response, CreatedDashboard);
    },

    async put(id, body) {
      const response = await core.request('PUT', one(id), { body });
      if (response.status === 201) return 'created';
      if (response.status === 204 || response.status === 200) return 'updated';
      throw core.fail(response);
    },

    async remove(id) {
      const response = await core.request('DELETE', one(id));
      if (response.status === 404) return false;
      if (response.status === 204 || response.status === 200) return true;
      throw core.fail(response);
    },

    async validate(body, id) {
      const path = id === undefined ? `${DASHBOARDS}/validator` : `${one(id)}/validator`;
      // A dry run changes nothing, so it retries like a PUT.
      const response = await core.request('POST', path, { body, idempotent: true });
      if (response.status === 204 || response.status === 200) return { valid: true };
      if (response.status === 413) return tooLarge(response, core.redact);
      if (response.status !== 400) throw core.fail(response);
      return validationFailure(response, core.redact);
    },
  };
}

/** A body over the target's limit is invalid desired state (nothing to retry, nothing wrong with the target). */
function tooLarge(response: TextResponse, redact: (text: string) => string): ValidationOutcome {
  const refusal = redact(parseEnvelope(response.text)?.error.message ?? 'request body too large');
  return { valid: false, violations: [], message: `too large for the target (413: ${refusal}); split it into smaller dashboards` };
}

/**
 * The validator's refusal, its texts redacted as every other answer's are: a target (or a gateway in front of it)
 * that quotes the request's headers in a violation would otherwise put the token in the plan, `/status` and CI logs.
 */
function validationFailure(response: TextResponse, redact: (text: string) => string): ValidationOutcome {
  const envelope = parseEnvelope(response.text);
  if (envelope === undefined) {
    throw unexpectedResponse(response, ['a validator 400 without an error envelope']);
  }
  return {
    valid: false,
    violations: (envelope.error.constraintViolations ?? []).map((violation) => redactedTexts(violation, redact)),
    message: redact(envelope.error.message),
  };
}

/** Each text member of a violation (the schema lets a target add its own beside path and message) redacted. */
function redactedTexts(violation: ConstraintViolation, redact: (text: string) => string): ConstraintViolation {
  return Object.fromEntries(Object.entries(violation).map(([key, value]) => [key, typeof value === 'string' ? redact(value) : value])) as ConstraintViolation;
}
