import type { IncomingMessage } from 'node:http';

const CLOSE: Readonly<Record<string, string>> = Object.freeze({ connection: 'close' });
const KEEP: Readonly<Record<string, string>> = Object.freeze({});

/**
 * `connection: close` for an error answer that leaves a request body unread: reading it to its end only to drop it
 * costs more than a new connection, and an oversized one could be anything. A request that declares no body has
 * nothing left to read, though `complete` is still false while its handler runs in the turn its headers arrived: a
 * GET refused in that turn (404, 401) keeps its connection. It closed before, and the daemon's start-up pass, one GET
 * 404 per new dashboard, opened 10,000 connections (bench `daemon-scale`, 1.20× 6ad1603's wall time).
 */
export function closeIfBodyUnread(req: IncomingMessage): Readonly<Record<string, string>> {
  return req.complete || !declaresBody(req) ? KEEP : CLOSE;
}

/** Chunked, or a Content-Length above zero (Node has refused the request already when the header is malformed). */
function declaresBody(req: IncomingMessage): boolean {
  const { headers } = req;
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}
