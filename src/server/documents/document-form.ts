import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { MultipartError, boundaryOf, readMultipart, type PartSink } from '../../lib/multipart-read.js';
import { CustomDocumentId, DOCUMENT_CONTENT_MAX_BYTES, DocumentDescription, DocumentName, DocumentType } from '../../schema/documents.js';
import { HttpError } from '../http/http-error.js';
import type { ContentUpload } from './content-files.js';
import type { CreateInput, NewContent, UpdateInput } from './document-service.js';

/** A text part is a field value: names, types, descriptions, flags, labels. Anything longer is not one. */
const TEXT_PART_MAX_BYTES = 64 * 1024;
const MAX_PARTS = 100;
/** The body around a content at its limit: the text parts and the framing. */
const BODY_SLACK_BYTES = 1024 * 1024;
/**
 * A media type and its parameters, all of it a valid HTTP header value (visible ASCII, spaces and tabs): it is sent
 * back as the content's Content-Type, and a value Node refuses to write (a `€`, a line break) made every later read of
 * the document a 500.
 */
const MIME_TYPE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+\/[!#$%&'*+.^_`|~0-9A-Za-z-]+(?:[\t ]*;[\t\x20-\x7e]*)?$/;

/** The Content-Type to serve stored content as: its own, or octet-stream for one stored before it was checked. */
export function servedContentType(stored: string): string {
  return MIME_TYPE.test(stored) ? stored : 'application/octet-stream';
}

/** The parts of a document request: text values by name (repeatable, as `labels`), and the content if sent. */
interface DocumentForm {
  readonly text: ReadonlyMap<string, readonly string[]>;
  readonly content: (NewContent & { readonly size: number }) | undefined;
}

/**
 * Reads a `multipart/form-data` request, streaming the `content` part into an upload (its own Content-Type becomes
 * the document's) and keeping the others as text. 413 as soon as the content passes 50 MB (or the declared length
 * promises it will), 400 for anything malformed; the upload is discarded whenever this throws.
 */
async function readDocumentForm(req: IncomingMessage, upload: () => ContentUpload): Promise<DocumentForm> {
  const declared = Number(req.headers['content-length']);
  if (declared > DOCUMENT_CONTENT_MAX_BYTES + BODY_SLACK_BYTES) throw tooLarge();
  const text = new Map<string, string[]>();
  let content: { upload: ContentUpload; contentType: string; size: number } | undefined;
  let parts = 0;
  try {
    await readMultipart(req, boundaryOf(req.headers['content-type']), (part): PartSink => {
      parts += 1;
      if (parts > MAX_PARTS) throw new HttpError(400, `A document request has at most ${MAX_PARTS} parts.`);
      if (part.name === 'content') {
        if (content) throw new HttpError(400, "The 'content' part is sent more than once.");
        const contentType = part.contentType?.trim() ?? '';
        if (!MIME_TYPE.test(contentType)) {
          throw new HttpError(400, contentType === '' ? "The 'content' part needs a Content-Type header of its own." : `The 'content' part's Content-Type '${contentType.slice(0, 100)}' is not a valid MIME type.`);
        }
        const current = { upload: upload(), contentType, size: 0 };
        content = current;
        return {
          write: async (chunk) => {
            current.size += chunk.length;
            if (current.size > DOCUMENT_CONTENT_MAX_BYTES) throw tooLarge();
            await current.upload.write(chunk);
          },
          end: () => undefined,
        };
      }
      const pieces: Buffer[] = [];
      let size = 0;
      return {
        write: (chunk) => {
          size += chunk.length;
          if (size > TEXT_PART_MAX_BYTES) throw new HttpError(400, `The '${part.name.slice(0, 100)}' part is over ${TEXT_PART_MAX_BYTES} bytes; only 'content' may be larger.`);
          pieces.push(Buffer.from(chunk));
        },
        end: () => {
          const values = text.get(part.name) ?? [];
          values.push(Buffer.concat(pieces).toString('utf8'));
          text.set(part.name, values);
        },
      };
    });
    if (content && content.size === 0) throw new HttpError(400, "The 'content' part is empty; a document's content has at least one byte.");
  } catch (error) {
    await (content as { upload: ContentUpload } | undefined)?.upload.discard();
    if (error instanceof MultipartError) throw new HttpError(400, `Malformed multipart/form-data body: ${error.message}`);
    // The client went away mid-body (node:http's `aborted`, ECONNRESET): nobody reads the answer, and it is no server
    // fault to log. Any other error while the body still arrives (the disk failing the upload) is the server's.
    if (!req.complete && (error as NodeJS.ErrnoException | undefined)?.code === 'ECONNRESET') throw new HttpError(400, 'The request body was cut off before its end.');
    throw error;
  }
  return { text, content };
}

function tooLarge(): HttpError {
  return new HttpError(413, `The document content exceeds the maximum of ${DOCUMENT_CONTENT_MAX_BYTES / (1024 * 1024)} MB.`);
}

const Flag = z.enum(['true', 'false'], { error: "must be 'true' or 'false'" }).transform((value) => value === 'true');

/** The text fields of a create: name and type required, the id a custom one when given. */
const CreateFields = z.object({
  name: DocumentName,
  type: DocumentType,
  description: DocumentDescription.optional(),
  id: CustomDocumentId.optional(),
  isPrivate: Flag.optional(),
});

/** The fields PATCH changes; others it tolerates (`id`, `labels`, `isReshareable`, `snapshotDescription`, `externalId`). */
const UpdateFields = z.object({
  name: DocumentName.optional(),
  type: DocumentType.optional(),
  description: DocumentDescription.optional(),
  isPrivate: Flag.optional(),
});

const UPDATABLE_PARTS = ['name', 'type', 'description', 'content', 'isPrivate', 'isReshareable', 'snapshotDescription', 'labels'];

/** A create's parts, read and validated; the upload is discarded when they are refused. */
export function readCreateInput(req: IncomingMessage, upload: () => ContentUpload): Promise<CreateInput> {
  return readValidated(req, upload, createInput);
}

/** An update's parts, read and validated; the upload is discarded when they are refused. */
export function readUpdateInput(req: IncomingMessage, upload: () => ContentUpload): Promise<UpdateInput> {
  return readValidated(req, upload, updateInput);
}

async function readValidated<T>(req: IncomingMessage, upload: () => ContentUpload, validate: (form: DocumentForm) => T): Promise<T> {
  const form = await readDocumentForm(req, upload);
  try {
    return validate(form);
  } catch (error) {
    await form.content?.upload.discard();
    throw error;
  }
}

function createInput(form: DocumentForm): CreateInput {
  if (!form.content) throw new HttpError(400, "A new document needs a 'content' part.");
  const fields = parseFields(CreateFields, form);
  return { ...definedOnly(fields), content: form.content } as CreateInput;
}

function updateInput(form: DocumentForm): UpdateInput {
  if (!UPDATABLE_PARTS.some((name) => form.text.has(name) || (name === 'content' && form.content))) {
    throw new HttpError(400, `An update needs at least one of the parts ${UPDATABLE_PARTS.join(', ')}.`);
  }
  const fields = parseFields(UpdateFields, form);
  return { ...definedOnly(fields), ...(form.content ? { content: form.content } : {}) };
}

/** The first value of each known field, validated; 400 naming every field that is wrong. */
function parseFields<T extends z.ZodType>(schema: T, form: DocumentForm): z.infer<T> {
  const values = Object.fromEntries([...form.text].map(([name, list]) => [name, list[0]]));
  const parsed = schema.safeParse(values);
  if (parsed.success) return parsed.data;
  throw new HttpError(400, parsed.error.issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`).join(' '));
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
}
