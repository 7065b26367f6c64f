import type { ConstraintViolation } from '../../schema/error-envelope.js';
import { HttpError } from '../http/http-error.js';
import type { PreparedDashboard } from '../store/dashboard-document.js';
import { prepareDashboardBody, type BodyTarget } from './dashboard-validation.js';

/** One body to prepare, as posted to a worker. */
export interface BodyJob {
  readonly seq: number;
  readonly bytes: Uint8Array;
  readonly target: BodyTarget;
}

/** A job's answer as plain data: the prepared dashboard, or the HttpError the body deserves. */
export type BodyOutcome =
  | { readonly seq: number; readonly ok: true; readonly prepared: PreparedDashboard }
  | { readonly seq: number; readonly ok: false; readonly status: number; readonly message: string; readonly violations?: ConstraintViolation[] };

/** The same work on either thread. Anything but an HttpError is a bug and is thrown, as it would be inline. */
export function prepareOutcome({ seq, bytes, target }: BodyJob): BodyOutcome {
  try {
    return { seq, ok: true, prepared: prepareDashboardBody(bytes, target) };
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    return { seq, ok: false, status: error.status, message: error.message, violations: error.violations };
  }
}

/** The prepared dashboard, or the answer's HttpError thrown again on this thread. */
export function settled(outcome: BodyOutcome): PreparedDashboard {
  if (outcome.ok) return outcome.prepared;
  throw new HttpError(outcome.status, outcome.message, outcome.violations);
}
