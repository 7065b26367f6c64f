import { count } from './diagnostics-output.js';

/**
 * What the folder holds, for people: `3 dashboards`, or with documents `3 dashboards, 2 platform dashboards and 1
 * notebook` (only the kinds there are, classic first).
 */
export function itemCounts(items: readonly { kind?: 'document' | undefined; body: unknown }[]): string {
  const documents = items.filter((d) => d.kind === 'document');
  const notebooks = documents.filter((d) => (d.body as { document: { kind: string } }).document.kind === 'notebook').length;
  const parts = [
    [items.length - documents.length, 'dashboard'],
    [documents.length - notebooks, 'platform dashboard'],
    [notebooks, 'notebook'],
  ] as const;
  const shown = parts.filter(([n], i) => n > 0 || (i === 0 && documents.length === 0)).map(([n, noun]) => count(n, noun));
  return shown.length === 1 ? (shown[0] as string) : `${shown.slice(0, -1).join(', ')} and ${shown.at(-1) as string}`;
}

/** `; 2 warnings (--strict makes warnings errors)` after the summary, or nothing. */
export function warningsNote(warnings: number): string {
  return warnings > 0 ? `; ${count(warnings, 'warning')} (--strict makes warnings errors)` : '';
}
