/**
 * What a target accepts in one request body: the embedded server enforces these, and `validate` checks dashboard
 * files against them so a file the target would refuse fails where it is written, not at apply.
 */

/** The real service refuses configuration payloads over 1 MB; the largest corpus dashboard is ~270 kB. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Real dashboards nest about 10 levels deep; 64 leaves room and stays far from any stack limit. A container (object
 * or array) at depth 65 or more, the body itself being depth 1, is refused.
 */
export const MAX_JSON_DEPTH = 64;
