import { z } from 'zod';

export const ParameterLocation = z.enum(['PATH', 'PAYLOAD_BODY', 'QUERY', 'HEADER']);
export type ParameterLocation = z.infer<typeof ParameterLocation>;

export const ConstraintViolation = z.looseObject({
  path: z.string().nullish(),
  message: z.string().nullish(),
  parameterLocation: ParameterLocation.or(z.string()).nullish(),
  location: z.string().nullish(),
});
export type ConstraintViolation = z.infer<typeof ConstraintViolation>;

/** The service-wide error body: `{"error": {"code", "message", "constraintViolations"?}}`. */
export const ErrorEnvelope = z.looseObject({
  error: z.looseObject({
    code: z.number().int(),
    message: z.string(),
    constraintViolations: z.array(ConstraintViolation).optional(),
  }),
});
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

/** `['tiles', 3, 'bounds']` → `tiles[3].bounds`, the dotted form the real service uses in violations. */
export function formatIssuePath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? String(segment) : `.${String(segment)}`;
  }
  return out;
}

/**
 * The most violations one error body lists. A 900 KB body of 300,000 empty tiles had a 280 MB answer (a violation per
 * tile, each naming every tile type) and took the server to 2.4 GB; the first hundred say what is wrong as well.
 */
export const MAX_VIOLATIONS = 100;

/** The envelope's message for `count` violations: the real service's, saying how many when not all are listed. */
export function constraintsMessage(count: number): string {
  return count > MAX_VIOLATIONS ? `Constraints violated. (${count} violations; the first ${MAX_VIOLATIONS} are listed)` : 'Constraints violated.';
}

/** Turns zod issues into one violation each, in the envelope's shape: the first MAX_VIOLATIONS of them. */
export function violationsFromIssues(
  issues: ReadonlyArray<z.core.$ZodIssue>,
  parameterLocation: ParameterLocation = 'PAYLOAD_BODY',
  prefix: ReadonlyArray<PropertyKey> = [],
): ConstraintViolation[] {
  return issues.slice(0, MAX_VIOLATIONS).map((issue) => ({
    path: formatIssuePath([...prefix, ...issue.path]),
    message: issue.message,
    parameterLocation,
    location: null,
  }));
}
