import type { z } from 'zod';
import { closest } from '../lib/closest.js';
import type { UnknownKey } from './unknown-keys.js';
import { excerpt, quoted } from '../lib/quoted.js';

/** How far a typo may be from what was meant: one edit in short words, up to three in long ones. */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  return closest(word, candidates, Math.min(3, Math.max(1, Math.floor(word.length / 3))));
}

/** Sets this small are listed in full when nothing is close; larger ones would not fit one line. */
const LISTABLE = 12;

export function unknownKeyMessage({ key, known }: UnknownKey): string {
  const near = nearest(key, known);
  if (near !== undefined) return `unknown key; did you mean ${near}?`;
  return known.length <= LISTABLE ? `unknown key (known here: ${known.join(', ')})` : 'unknown key';
}

/**
 * One short line for a value outside a closed set (an enum, the tile types, the dynamic filters), with the allowed
 * value it most likely meant; undefined when the issue is not about a closed set or the value is not a string.
 */
export function closedSetMessage(issue: z.core.$ZodIssue, found: unknown): string | undefined {
  const allowed = allowedValues(issue);
  if (allowed === undefined || typeof found !== 'string') return undefined;
  const near = suggestion(found, allowed);
  const shown = quoted(found);
  if (near !== undefined) return `unknown value ${shown}; did you mean ${near}?`;
  if (allowed.length <= LISTABLE) return `unknown value ${shown}; use one of ${allowed.join(', ')}`;
  return `unknown value ${shown}; \`dashcd schema\` lists the ${allowed.length} allowed values`;
}

/** A schema issue's message about `value` (the checked value, from its root): closedSetMessage's where it has one. */
export function issueMessage(issue: z.core.$ZodIssue, value: unknown): string {
  return closedSetMessage(issue, valueAt(value, issue.path)) ?? issue.message;
}

/** The value an issue is about: zod's paths run through objects and arrays of the value, ending at most one member past it. */
function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let at = value;
  for (const segment of path) at = (at as Record<PropertyKey, unknown> | undefined)?.[segment];
  return at;
}

function allowedValues(issue: z.core.$ZodIssue): readonly string[] | undefined {
  if (issue.code === 'invalid_value') return strings(issue.values);
  if (issue.code === 'invalid_union' && 'options' in issue) return strings(issue.options as unknown[]);
  if (issue.code === 'custom') return strings((issue.params as { allowed?: unknown[] } | undefined)?.allowed);
  return undefined;
}

function strings(values: readonly unknown[] | undefined): readonly string[] | undefined {
  return values !== undefined && values.length > 0 && values.every((v) => typeof v === 'string') ? (values as string[]) : undefined;
}

/** Allowed values ending in `:` are kinds that take a parameter (`HOST_TAG_KEY:env`): the kind is what is compared. */
function suggestion(found: string, allowed: readonly string[]): string | undefined {
  const colon = found.indexOf(':');
  if (colon > 0) {
    const kind = nearest(found.slice(0, colon + 1), allowed.filter((a) => a.endsWith(':')));
    if (kind !== undefined) return excerpt(kind + found.slice(colon + 1));
  }
  return nearest(found, allowed.filter((a) => !a.endsWith(':')));
}
