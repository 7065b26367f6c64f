import type { PlanAction } from '../../plan/build-plan.js';

export type Color = 'green' | 'yellow' | 'red' | 'cyan';

const SGR: Record<Color, number> = { green: 32, yellow: 33, red: 31, cyan: 36 };

/** What each action is painted in at a terminal: create green, update yellow, delete and orphan red, adopt cyan. */
export const ACTION_COLOR: Record<PlanAction, Color | undefined> = {
  create: 'green',
  adopt: 'cyan',
  update: 'yellow',
  delete: 'red',
  unchanged: undefined,
  orphan: 'red',
};

/** Wraps text in an ANSI colour; a painter made with `enabled: false` returns the text as it is. */
export type Paint = (color: Color | undefined, text: string) => string;

export function painter(enabled: boolean): Paint {
  return (color, text) => (enabled && color !== undefined ? `\u001b[${SGR[color]}m${text}\u001b[39m` : text);
}

/** A patch line's colour from its mark: `+` added, `-` removed, `~` replaced. */
export function markColor(line: string): Color | undefined {
  const mark = line.trimStart()[0];
  return mark === '+' ? 'green' : mark === '-' ? 'red' : mark === '~' ? 'yellow' : undefined;
}

/**
 * Colour for a stream: only at a terminal and never with NO_COLOR set (https://no-color.org), so a plan piped to a
 * file or a CI log stays plain text.
 */
export function colorFor(stream: { isTTY?: boolean }, env: Readonly<Record<string, string | undefined>>): boolean {
  return stream.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === '');
}
