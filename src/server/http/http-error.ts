import type { z } from 'zod';
import { constraintsMessage, MAX_VIOLATIONS, violationsFromIssues, type ConstraintViolation, type ParameterLocation } from '../../schema/error-envelope.js';

/**
 * What a handler throws for any non-2xx answer. One function (respond) turns it into the ErrorEnvelope, so every
 * error body has the same shape.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly violations?: ConstraintViolation[],
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }

  /**
   * 400 `Constraints violated.` with one violation per problem, as the real service answers: the first MAX_VIOLATIONS
   * of `total`, the message saying how many there were when not all are listed.
   */
  static constraints(violations: ConstraintViolation[], total = violations.length): HttpError {
    return new HttpError(400, constraintsMessage(Math.max(total, violations.length)), violations.slice(0, MAX_VIOLATIONS));
  }

  /** `constraints` for zod issues, counted in full, listed up to MAX_VIOLATIONS, after any `first` of the caller's. */
  static fromIssues(
    issues: ReadonlyArray<z.core.$ZodIssue>,
    { location, prefix, first = [] }: { location?: ParameterLocation; prefix?: ReadonlyArray<PropertyKey>; first?: ConstraintViolation[] } = {},
  ): HttpError {
    return HttpError.constraints([...first, ...violationsFromIssues(issues, location, prefix)], first.length + issues.length);
  }

  static queryParameter(path: string, message: string): HttpError {
    return HttpError.constraints([{ path, message, parameterLocation: 'QUERY', location: null }]);
  }
}
