import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { eventDocumentItems } from './event-document.js';

/**
 * Where an imported record is in its file: a JSONL line (from 1), or an element (from 0) of an answer's `events`, or
 * of the file's own array (`within` '').
 */
export type RecordPlace = { readonly line: number } | { readonly item: number; readonly within: 'events' | '' };

export interface ImportRecord {
  /** One event's JSON text as written; '' for a blank line. */
  readonly text: string;
  readonly place: RecordPlace;
}

/** The records of an import file in order: the elements of an events answer's `events`, or else its JSONL lines. */
export async function* importRecords(file: string): AsyncGenerator<ImportRecord> {
  const document = await eventDocumentItems(file);
  if (document?.kind === 'object') {
    yield { text: document.text, place: { line: 1 } };
    return;
  }
  if (document) {
    for (const [item, text] of document.items.entries()) yield { text, place: { item, within: document.within } };
    return;
  }
  let line = 0;
  for await (const text of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) yield { text, place: { line: ++line } };
}
