import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';

/** Bytes that every body being read at once may hold together. */
export interface BodyBudget {
  /** False, reserving nothing, when `bytes` more would pass the budget. */
  reserve(bytes: number): boolean;
  release(bytes: number): void;
}

export function bodyBudget(total: number): BodyBudget {
  let held = 0;
  return {
    reserve(bytes) {
      if (held + bytes > total) return false;
      held += bytes;
      return true;
    },
    release(bytes) {
      held -= bytes;
    },
  };
}

/** Why a body was not read: past its own limit, past the shared budget, not all there in time, or its client left. */
export type BodyRefusal = 'too-large' | 'over-budget' | 'too-slow' | 'gone';

export type CollectedBody = { readonly ok: true; readonly bytes: Buffer } | { readonly ok: false; readonly why: BodyRefusal };

export interface BodyLimits {
  /** Bytes one body may have. */
  readonly limit: number;
  /** Shared with the other bodies being read at once; holds only the bytes that have arrived. */
  readonly budget?: BodyBudget;
  /** The body must be whole this long after the read starts. */
  readonly deadlineMs?: number;
}

/** A request whose Content-Length is over `limit`: refused before a byte of its body is read. */
export function declaresMoreThan(headers: IncomingHttpHeaders, limit: number): boolean {
  return Number(headers['content-length']) > limit;
}

/**
 * Every request body the servers read (the API's JSON, the webhook's payload, the console's and the OAuth endpoint's
 * forms) is collected here, so each is refused the same way. A declared length over the limit is refused before
 * reading, a body that grows past it at that point. With a budget, only the bytes that have arrived are held, so a
 * connection that declares a large body and sends nothing holds nothing; with a deadline, how long they are held is
 * bounded. On refusal the stream is paused, not destroyed, so an answer can still be written on its connection (the
 * caller's `connection: close` then drops the rest unread); what was held is given back as soon as the read ends,
 * either way, and only once.
 */
export function collectBody(body: Readable & { readonly headers?: IncomingHttpHeaders }, { limit, budget, deadlineMs }: BodyLimits): Promise<CollectedBody> {
  if (body.headers && declaresMoreThan(body.headers, limit)) return Promise.resolve({ ok: false, why: 'too-large' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const finish = (result: CollectedBody): void => {
      clearTimeout(timer);
      body.off('data', onData).off('end', onEnd).off('error', onGone).off('close', onGone);
      if (!result.ok) body.pause();
      budget?.release(received);
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      if (received + chunk.length > limit) return finish({ ok: false, why: 'too-large' });
      if (budget && !budget.reserve(chunk.length)) return finish({ ok: false, why: 'over-budget' });
      received += chunk.length;
      chunks.push(chunk);
    };
    // One chunk is the body itself: no copy (most API bodies arrive whole).
    const onEnd = (): void => finish({ ok: true, bytes: chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks, received) });
    // The client went away (or the server's request timeout fired) before the body was whole.
    const onGone = (): void => finish({ ok: false, why: 'gone' });
    const timer = deadlineMs === undefined ? undefined : setTimeout(() => finish({ ok: false, why: 'too-slow' }), deadlineMs);
    body.on('data', onData).once('end', onEnd).once('error', onGone).once('close', onGone);
  });
}
