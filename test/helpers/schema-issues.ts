/** Anything with zod's safeParse. */
interface SafeParser {
  safeParse(value: unknown): { error?: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> } | undefined };
}

/** The issues a schema finds in `value`, each as `path.to.member: message` (empty when it accepts the value). */
export function issuesOf(schema: SafeParser, value: unknown): string[] {
  return (schema.safeParse(value).error?.issues ?? []).map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}
