import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { collectBody, declaresMoreThan } from '../lib/collect-body.js';
import { DOCUMENT_CONTENT_MAX_BYTES } from '../schema/documents.js';
import { BODY_LIMIT_BYTES } from '../schema/limits.js';

const MIB = 1024 * 1024;

/**
 * The most of one API answer read into memory: 16 times the largest dashboard a target accepts. The largest answers
 * are listings: the classic dashboards' one is never paged (some 150 bytes a dashboard, so about 100,000 of them fit),
 * events and documents come in pages of a few hundred. A hostile target streaming without end made `pull --all` abort
 * with bad_alloc at 1.5 GB; a plan reads 16 at once, so this bounds it near 256 MiB.
 */
export const API_ANSWER_LIMIT_BYTES = 16 * BODY_LIMIT_BYTES;

/** A document's GET or content: the service's content limit, plus room for the metadata part and the framing. */
export const DOCUMENT_ANSWER_LIMIT_BYTES = DOCUMENT_CONTENT_MAX_BYTES + BODY_LIMIT_BYTES;

/** A response body past the limit of its call: read no further, its connection dropped. */
export class BodyOverLimit extends Error {
  readonly code = 'BODY_OVER_LIMIT' as const;

  constructor(
    readonly limit: number,
    readonly status: number,
  ) {
    super(`the body is larger than ${shownBytes(limit)}, the most dashcd reads of this answer; the rest was not read`);
    this.name = 'BodyOverLimit';
  }
}

function shownBytes(bytes: number): string {
  return bytes % MIB === 0 ? `${bytes / MIB} MiB` : `${bytes} bytes`;
}

/**
 * A response's body, counted as it arrives (collect-body.ts, as the servers read request bodies): a body that declares
 * or grows past `limit` bytes is a BodyOverLimit, and is destroyed, so undici drops the connection and the rest is
 * never read. A body cut short rejects with what cut it (a reset, undici's body timeout, the attempt's signal).
 */
export async function readBody(response: Dispatcher.ResponseData, limit: number): Promise<Buffer> {
  const { body } = response;
  if (!declaresMoreThan(response.headers as IncomingHttpHeaders, limit)) {
    const collected = await collectBody(body, { limit });
    if (collected.ok) return collected.bytes;
    if (collected.why !== 'too-large') throw body.errored ?? new Error('the response body ended early');
  }
  // undici reports a body destroyed before its end as an 'error' event, which nobody else is left to hear.
  body.on('error', () => undefined).destroy();
  throw new BodyOverLimit(limit, response.statusCode);
}

/** Decodes as undici's `body.text()` did: UTF-8, a leading byte order mark dropped, bad bytes replaced. */
const utf8 = new TextDecoder();

export async function readText(response: Dispatcher.ResponseData, limit: number): Promise<string> {
  return utf8.decode(await readBody(response, limit));
}
