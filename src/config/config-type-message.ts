import type { z } from 'zod';

/** What each type zod names is, in the words of someone writing YAML by hand. */
const EXPECTED: Readonly<Record<string, string>> = {
  boolean: 'true or false',
  record: 'a mapping (name: value lines)',
  object: 'a mapping (name: value lines)',
  array: 'a list (- item lines, or [a, b])',
  string: 'text',
  number: 'a number',
  int: 'a whole number',
};

/**
 * dashcd.yaml's messages for a value of the wrong type. zod's own ("Invalid input: expected record, received array")
 * speaks TypeScript; a person wrote `environments: [dev, prod]` or `prune: yes` and needs to see what YAML would do
 * (`prune: true`). Undefined for anything else: zod's message, or the caller's map, applies.
 */
export function configTypeMessage(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code !== 'invalid_type' || issue.input === undefined) return undefined;
  const expected = EXPECTED[issue.expected];
  if (expected === undefined) return undefined;
  return `expected ${expected}, got ${described(issue.input)}`;
}

function described(input: unknown): string {
  if (typeof input === 'string') return `the text ${JSON.stringify(input.length > 40 ? `${input.slice(0, 40)}…` : input)}${yamlHint(input)}`;
  if (Array.isArray(input)) return 'a list';
  if (input === null) return 'nothing (an empty value)';
  if (typeof input === 'object') return 'a mapping';
  return `${typeof input === 'number' ? 'the number' : ''} ${String(input)}`.trim();
}

/** YAML 1.2 reads `yes`, `no`, `on` and `off` as text, where YAML 1.1 (and many tools) took them for booleans. */
function yamlHint(input: string): string {
  return /^(?:yes|no|on|off|y|n)$/i.test(input) ? ` (YAML reads ${input} as text: write ${/^(?:yes|on|y)$/i.test(input) ? 'true' : 'false'})` : '';
}
