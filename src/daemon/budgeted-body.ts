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

/**
 * Reads a body, holding in `budget` only the bytes that have arrived: a connection that declares a large body and
 * sends nothing holds nothing, so idle connections cannot lock real deliveries out. A body must be whole within
 * `deadlineMs` of the start (a webhook host sends its payload with the headers), which bounds how long arrived bytes
 * are held. On refusal the stream is paused, not destroyed, so an answer can still be written; what was held is given
 * back as soon as the read ends, either way.
 */
export function readWithinBudget(body: Readable, budget: BodyBudget, { limit, deadlineMs }: { limit: number; deadlineMs: number }): Promise<{ ok: true; bytes: Buffer } | { ok: false; why: BodyRefusal }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let held = 0;
    // Once: every listener goes, so no later event can give the same bytes back twice.
    const finish = (result: { ok: true; bytes: Buffer } | { ok: false; why: BodyRefusal }): void => {
      clearTimeout(timer);
      body.off('data', onData).off('end', onEnd).off('error', onGone).off('close', onGone);
      if (!result.ok) body.pause();
      budget.release(held);
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      if (held + chunk.length > limit) return finish({ ok: false, why: 'too-large' });
      if (!budget.reserve(chunk.length)) return finish({ ok: false, why: 'over-budget' });
      held += chunk.length;
      chunks.push(chunk);
    };
    const onEnd = (): void => finish({ ok: true, bytes: Buffer.concat(chunks, held) });
    const onGone = (): void => finish({ ok: false, why: 'gone' });
    const timer = setTimeout(() => finish({ ok: false, why: 'too-slow' }), deadlineMs);
    body.on('data', onData).once('end', onEnd).once('error', onGone).once('close', onGone);
  });
}
