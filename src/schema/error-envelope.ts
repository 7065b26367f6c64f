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

/** Turns zod issues into one violation each, in the envelope's shape. */
export function violationsFromIssues(
  issues: ReadonlyArray<z.core.$ZodIssue>,
  parameterLocation: ParameterLocation = 'PAYLOAD_BODY',
  prefix: ReadonlyArray<PropertyKey> = [],
): ConstraintViolation[] {
  return issues.map((issue) => ({
    path: formatIssuePath([...prefix, ...issue.path]),
    message: issue.message,
    parameterLocation,
    location: null,
  }));
}
