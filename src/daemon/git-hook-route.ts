import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../lib/logger.js';
import { HttpError } from '../server/http/http-error.js';
import { bodyTooLarge } from '../server/http/read-body.js';
import { bodyBudget, collectBody, declaresMoreThan, type BodyBudget } from '../lib/collect-body.js';
import { sendError, sendJson } from '../server/http/respond.js';
import { closeIfBodyUnread } from '../server/http/unread-body.js';
import { DeliveryMemory } from '../source/delivery-memory.js';
import { judgePushHook } from '../source/push-webhook.js';
import { errorMessage } from '../lib/error-message.js';

/** GitHub caps a push payload at 25 MB but sends at most 20 commits; real pushes stay far below this. */
export const HOOK_BODY_LIMIT_BYTES = 2 * 1024 * 1024;

/**
 * What every webhook body being read at once may hold together: four of the largest, where a real push is a few kB.
 * Without it each connection sending a signed-looking request could keep 2 MiB, and 400 of them 800 MB.
 */
export const HOOK_BODIES_BUDGET_BYTES = 4 * HOOK_BODY_LIMIT_BYTES;

/** A webhook host sends its payload with the headers: a body still incomplete this long after is cut (408). */
export const HOOK_BODY_DEADLINE_MS = 5_000;

export const HOOK_PATH = '/hooks/git';

export interface GitHookOptions {
  /** DASHCD_WEBHOOK_SECRET; without it the route answers 404 (webhooks off). */
  secret: string | undefined;
  follows(ref: string): boolean;
  fetchNow(reason: string): void;
  log: Logger;
}

/**
 * `POST /hooks/git`: a verified push to a followed ref fetches at once (202); a verified push elsewhere, a ping or
 * another event is acknowledged and ignored (202); a bad or missing signature is a 401 and fetches nothing. Answers
 * false for any other path, so the caller can route it on.
 */
export function gitHookHandler(options: GitHookOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  const log = options.log.child({ component: 'webhook' });
  const deliveries = new DeliveryMemory();
  const budget = bodyBudget(HOOK_BODIES_BUDGET_BYTES);
  return (req, res) => {
    if ((req.url ?? '').split('?')[0] !== HOOK_PATH) return false;
    handle(req, { ...options, log, deliveries, budget }).then(
      ({ status, body }) => sendJson(res, status, body),
      (error: unknown) => {
        const http = error instanceof HttpError ? error : new HttpError(500, 'internal error');
        if (!(error instanceof HttpError)) log.error({ err: errorMessage(error) }, 'webhook handler failed');
        sendError(res, http);
        if (http.headers.connection === 'close') req.socket.destroySoon();
      },
    );
    return true;
  };
}

interface HookContext extends GitHookOptions {
  deliveries: DeliveryMemory;
  budget: BodyBudget;
}

async function handle(req: IncomingMessage, context: HookContext): Promise<{ status: number; body: object }> {
  const { secret, log } = context;
  if (req.method !== 'POST') throw new HttpError(405, `Method ${req.method ?? ''} not allowed on ${HOOK_PATH}: webhooks POST`, undefined, { allow: 'POST' });
  if (secret === undefined) throw new HttpError(404, 'Webhooks are off: start the daemon with DASHCD_WEBHOOK_SECRET set');
  const body = await readSignedBody(req, secret, context);
  const verdict = judgePushHook({ headers: req.headers, body, secret, follows: context.follows, firstTime: (keys) => context.deliveries.firstTime(keys) });
  switch (verdict.kind) {
    case 'unauthorized':
      throw refused(req, verdict.message, log);
    case 'bad-request':
      throw new HttpError(400, verdict.message);
    case 'ignored':
      log.info({ host: verdict.host, reason: verdict.reason }, 'webhook ignored');
      return { status: 202, body: { fetch: false, reason: verdict.reason } };
    case 'replay':
      // 200, not 409: a host's redelivery is answered as done (it was), and nothing is queued again.
      log.info({ host: verdict.host, ref: verdict.ref }, 'webhook: delivery already seen; not fetching again');
      return { status: 200, body: { fetch: false, reason: 'delivery already seen: its fetch was queued when it first arrived' } };
    case 'push':
      log.info({ host: verdict.host, ref: verdict.ref }, 'webhook: fetching now');
      context.fetchNow(`webhook ${verdict.host} ${verdict.ref}`);
      return { status: 202, body: { fetch: true, ref: verdict.ref } };
  }
}

/**
 * The body, read only once the headers could be: anyone may connect, so what the headers alone refuse (too large,
 * unsigned, a wrong GitLab token) costs no memory, and what is read is held within the budget shared by all requests,
 * by the bytes that have arrived (collect-body.ts).
 */
async function readSignedBody(req: IncomingMessage, secret: string, context: HookContext): Promise<Buffer> {
  // Before the signature: a body too large is refused as such, signed or not.
  if (declaresMoreThan(req.headers, HOOK_BODY_LIMIT_BYTES)) throw bodyTooLarge(HOOK_BODY_LIMIT_BYTES);
  refuseByHeaders(req, secret, context.log);
  const read = await collectBody(req, { limit: HOOK_BODY_LIMIT_BYTES, budget: context.budget, deadlineMs: HOOK_BODY_DEADLINE_MS });
  if (read.ok) return read.bytes;
  if (read.why === 'over-budget') throw busy(req, context.log);
  if (read.why === 'too-large') throw bodyTooLarge(HOOK_BODY_LIMIT_BYTES);
  if (read.why === 'too-slow') throw new HttpError(408, `The body did not arrive within ${HOOK_BODY_DEADLINE_MS / 1000} s of the headers.`, undefined, { connection: 'close' });
  throw new HttpError(400, 'The request ended before its body did.', undefined, { connection: 'close' });
}

const NO_BODY = Buffer.alloc(0);

/**
 * A GitHub signature covers the body, so it is checked once read; no signature at all, a GitLab token (the secret
 * itself) or an empty secret is judged on the headers. An empty body stands in for the unread one: judgePushHook
 * decides these before it looks at the body, so its answer here is the one it would give after reading.
 */
function refuseByHeaders(req: IncomingMessage, secret: string, log: Logger): void {
  if (secret !== '' && req.headers['x-hub-signature-256'] !== undefined) return;
  const verdict = judgePushHook({ headers: req.headers, body: NO_BODY, secret, follows: () => false });
  if (verdict.kind === 'unauthorized') throw refused(req, verdict.message, log);
}

/** 401; a body left unread closes the connection rather than being read to its end for nothing. */
function refused(req: IncomingMessage, message: string, log: Logger): HttpError {
  log.warn({ reason: message }, 'webhook refused');
  return new HttpError(401, message, undefined, closeIfBodyUnread(req));
}

function busy(req: IncomingMessage, log: Logger): HttpError {
  log.warn({}, 'webhook refused: the bodies being read at once are at their memory budget; answering 503');
  return new HttpError(503, 'Too many webhook deliveries are being read at once; retry after 1 s.', undefined, { 'retry-after': '1', ...closeIfBodyUnread(req) });
}
