import { documentFileValue } from '../documents/document-file.js';
import { exactYaml } from '../lib/exact-yaml.js';
import { once } from '../lib/once.js';
import { withoutDocumentMark } from '../documents/ownership-mark.js';
import { DOCUMENT_KEY, type LiveDocumentBody } from '../schema/document-content.js';
import { PLAIN_STRINGS, type FileStrings } from './template-literals.js';
import { MAX_SOURCE_BYTES } from '../schema/limits.js';

/** A live document as pull writes it, or why no file can hold it. */
export type PulledDocument = { name: string; value: LiveDocumentBody; fileText: () => string } | { refused: string };

/**
 * A live document (its file form, live-form.ts) as its pulled file means it and as that file's text: the
 * ownership mark taken off the description (the file never carries it: apply adds it), `document.id` set to the
 * live id so renaming the file is safe. Refused when the content has its own top-level `dashcd` member, which a
 * file would read as dashcd's settings (a top-level `document` member is refused when the live form is made).
 * `written`: how the file writes the live strings (`value` keeps them as live has them). The text is made only
 * when asked for: a file already meaning the same is never rewritten, and making YAML was most of a re-pull's time.
 */
export function pulledDocument(id: string, live: LiveDocumentBody, ownershipTag: string, written: FileStrings['written'] = PLAIN_STRINGS.written): PulledDocument {
  const { [DOCUMENT_KEY]: block, ...content } = live;
  const description = withoutDocumentMark(block.description, ownershipTag);
  const metadata = { kind: block.kind, id, name: block.name, description, isPrivate: block.isPrivate ?? false };
  const fileValue = documentFileValue(written(metadata), written(content));
  if (fileValue === undefined) return { refused: `its content has a top-level "dashcd" member, which a dashcd file would read as its own settings; rename that member in the app first` };
  // Before its YAML is made: a target's 48 MB array took that past the heap. Twice the limit, as a rough bound: JSON's
  // escapes (\" and \n in a markdown tile) can make it much larger than the YAML, whose own size decides (pull-items).
  const jsonBytes = JSON.stringify(content).length;
  if (jsonBytes > 2 * MAX_SOURCE_BYTES) return { refused: tooLargeForAFile(jsonBytes, 'its content is') };
  const { version: _version, description: _description, ...rest } = block;
  const value = { [DOCUMENT_KEY]: { ...rest, ...(description === undefined ? {} : { description }) }, ...content } as LiveDocumentBody;
  return { name: block.name, value, fileText: once(() => exactYaml(fileValue)) };
}

/** Why no file can hold an item of `bytes`: dashcd reads a file up to MAX_SOURCE_BYTES, so it would refuse its own. */
export function tooLargeForAFile(bytes: number, what: string): string {
  return `${what} ${bytes} bytes; a file is read up to ${MAX_SOURCE_BYTES / (1024 * 1024)} MiB, so no file can hold it: keep it in the app`;
}
