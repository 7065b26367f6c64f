import type { IncomingMessage, ServerResponse } from 'node:http';
import { servesHost } from '../console/listener-host.js';
import type { MetricsRegistry } from '../lib/metrics.js';
import type { DaemonStatusJson, HealthJson } from './status-schema.js';
import { boundedStatus } from './status-bound.js';
import { HttpError } from '../server/http/http-error.js';
import { sendError } from '../server/http/respond.js';

/** What the status endpoints read: the daemon's one loop, or its environments together. */
export interface StatusView {
  readonly registry: MetricsRegistry;
  /** False once shutdown starts, or when a loop died: `/healthz` answers 503 then. */
  alive: boolean;
  toJSON(): DaemonStatusJson;
  health(): HealthJson;
}

const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };

/**
 * `/healthz`, `/status`, `/metrics`; answers false for any other path so the caller can route it on. On a loopback
 * listener (`loopback`) they answer only under a loopback name and their own port (421 otherwise), as the console
 * does: `/status` tells the repository, files and errors, which a DNS-rebound web page must not read.
 */
export function handleStatusRequest(status: StatusView, req: IncomingMessage, res: ServerResponse, loopback = false): boolean {
  const path = (req.url ?? '/').split('?')[0];
  if (path !== '/healthz' && path !== '/status' && path !== '/metrics') return false;
  if (loopback && !servesHost(req)) {
    sendError(res, new HttpError(421, 'Misdirected request: this listener answers only under a loopback name and its own port'));
    return true;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    sendError(res, new HttpError(405, `Method ${req.method ?? ''} not allowed on ${path}`, undefined, { allow: 'GET, HEAD' }));
    return true;
  }
  if (path === '/metrics') {
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
    res.end(req.method === 'HEAD' ? undefined : status.registry.render());
    return true;
  }
  const health = status.health();
  const body = path === '/healthz' ? health : boundedStatus(status.toJSON());
  res.writeHead(path === '/healthz' && health.status === 'unavailable' ? 503 : 200, JSON_TYPE);
  res.end(req.method === 'HEAD' ? undefined : `${JSON.stringify(body, null, path === '/status' ? 2 : 0)}\n`);
  return true;
}
