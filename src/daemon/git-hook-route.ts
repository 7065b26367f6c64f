import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../lib/logger.js';
import { HttpError } from '../server/http/http-error.js';
import { readBodyBytes } from '../server/http/read-body.js';
import { sendError, sendJson } from '../server/http/respond.js';
import { DeliveryMemory } from '../source/delivery-memory.js';
import { judgePushHook } from '../source/push-webhook.js';
import { errorMessage } from '../lib/error-message.js';

/** GitHub caps a push payload at 25 MB but sends at most 20 commits; real pushes stay far below this. */
export const HOOK_BODY_LIMIT_BYTES = 2 * 1024 * 1024;

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
  return (req, res) => {
    if ((req.url ?? '').split('?')[0] !== HOOK_PATH) return false;
    handle(req, options, log, deliveries).then(
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

async function handle(req: IncomingMessage, options: GitHookOptions, log: Logger, deliveries: DeliveryMemory): Promise<{ status: number; body: object }> {
  if (req.method !== 'POST') throw new HttpError(405, `Method ${req.method ?? ''} not allowed on ${HOOK_PATH}: webhooks POST`, undefined, { allow: 'POST' });
  if (options.secret === undefined) throw new HttpError(404, 'Webhooks are off: start the daemon with DASHCD_WEBHOOK_SECRET set');
  const body = await readBodyBytes(req, HOOK_BODY_LIMIT_BYTES);
  const verdict = judgePushHook({ headers: req.headers, body, secret: options.secret, follows: options.follows, firstTime: (keys) => deliveries.firstTime(keys) });
  switch (verdict.kind) {
    case 'unauthorized':
      log.warn({ reason: verdict.message }, 'webhook refused');
      throw new HttpError(401, verdict.message);
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
      options.fetchNow(`webhook ${verdict.host} ${verdict.ref}`);
      return { status: 202, body: { fetch: true, ref: verdict.ref } };
  }
}
