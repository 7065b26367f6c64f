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

/**
 * A file past this is reported by its size, unread. Room for a dashboard as large as a target accepts (1 MiB as the
 * compact JSON apply sends) written out as pretty JSON or YAML. Checking a file costs time and memory by its nodes, not
 * its bytes: a committed file of the worst shape (one `- 1` a line, or `[1,1,…]`) cost the YAML reader about 3 s and
 * 250 MB per MB, so 32 MB of it ran the daemon out of memory at every start. Within this size the YAML reader is
 * also given no more than MAX_YAML_TOKENS (desired/yaml-hazards.ts). A followed commit's checkout writes no more of
 * a file (tree-checkout.ts).
 */
export const MAX_SOURCE_BYTES = 4 * BODY_LIMIT_BYTES;
