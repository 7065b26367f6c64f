import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendRouteResponse } from '../http/respond.js';
import { closeIfBodyUnread } from '../http/unread-body.js';
import type { DocumentApi, DocumentApiDeps } from './document-api.js';
import { isDocumentServiceUrl } from './document-paths.js';

/**
 * The Document service with its modules loaded on first use: they were ~20 ms of every server's start-up (`serve`,
 * the daemon's embedded API), now paid once by the first platform request or platform token. A request that comes
 * while they load waits for them (node:http holds its body meanwhile).
 */
export function lazyDocumentApi(deps: DocumentApiDeps, load: () => Promise<typeof import('./document-api.js')> = () => import('./document-api.js')): DocumentApi {
  let api: DocumentApi | undefined;
  let loading: Promise<DocumentApi> | undefined;
  const loaded = (): Promise<DocumentApi> => (loading ??= load().then(({ createDocumentApi }) => (api = createDocumentApi(deps))));

  return {
    handles: isDocumentServiceUrl,
    listener(req, res) {
      // Stryker disable next-line ConditionalExpression: speed-only; the loaded service answers the same a turn later.
      if (api) return api.listener(req, res);
      loaded().then(
        (ready) => ready.listener(req, res),
        (error: unknown) => answerUnavailable(req, res, deps, error),
      );
    },
    addEphemeralToken: async (env, scopes, subject) => (await loaded()).addEphemeralToken(env, scopes, subject),
    // Nothing loaded means nothing written: there is nothing to wait for or to close.
    flushed: async () => (loading ? (await loading).flushed() : undefined),
    close: async () => (loading ? (await loading.catch(() => undefined))?.close() : undefined),
  };
}

/** The service's modules could not be loaded (a broken install): 500 in the platform's envelope, logged. */
function answerUnavailable(req: IncomingMessage, res: ServerResponse, deps: DocumentApiDeps, error: unknown): void {
  const errorRef = randomUUID();
  deps.log.error({ err: error, errorRef }, 'the Document service could not be loaded');
  import('../../schema/documents.js').then(
    ({ platformErrorEnvelope }) => sendRouteResponse(res, { status: 500, body: platformErrorEnvelope(500, 'Internal server error; the server log has the details under this errorRef.', errorRef), headers: closeIfBodyUnread(req) }),
    () => res.destroy(),
  );
}
