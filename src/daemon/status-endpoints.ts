import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MetricsRegistry } from '../lib/metrics.js';
import type { DaemonStatusJson, HealthJson } from './status-schema.js';

/** What the status endpoints read: the daemon's one loop, or its environments together. */
export interface StatusView {
  readonly registry: MetricsRegistry;
  /** False once shutdown starts, or when a loop died: `/healthz` answers 503 then. */
  alive: boolean;
  toJSON(): DaemonStatusJson;
  health(): HealthJson;
}

const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };

/** `/healthz`, `/status`, `/metrics`; answers false for any other path so the caller can route it on. */
export function handleStatusRequest(status: StatusView, req: IncomingMessage, res: ServerResponse): boolean {
  const path = (req.url ?? '/').split('?')[0];
  if (path !== '/healthz' && path !== '/status' && path !== '/metrics') return false;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD', ...JSON_TYPE });
    res.end(JSON.stringify({ error: { code: 405, message: `Method ${req.method ?? ''} not allowed on ${path}` } }));
    return true;
  }
  if (path === '/metrics') {
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
    res.end(req.method === 'HEAD' ? undefined : status.registry.render());
    return true;
  }
  const health = status.health();
  const body = path === '/healthz' ? health : status.toJSON();
  res.writeHead(path === '/healthz' && health.status === 'unavailable' ? 503 : 200, JSON_TYPE);
  res.end(req.method === 'HEAD' ? undefined : `${JSON.stringify(body, null, path === '/status' ? 2 : 0)}\n`);
  return true;
}
