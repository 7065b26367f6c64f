import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return bare === '::1' || bare === '0:0:0:0:0:0:0:1';
}

/** `name` or `name:port`, the name an IPv6 literal in brackets. */
const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i;

/**
 * Whether a request to a loopback listener names it: a loopback name or address (an IP literal or `localhost`
 * cannot be rebound to another machine's page) with the port the connection came in on. A page of another site
 * whose name was re-pointed at 127.0.0.1 (DNS rebinding) sends its own name and is refused. A request without Host
 * (HTTP/1.0) comes from no browser page, so it passes.
 */
export function servesHost(req: IncomingMessage): boolean {
  const header = req.headers.host;
  if (header === undefined) return true;
  const match = HOST_HEADER.exec(header);
  if (!match?.[1]) return false;
  const port = match[2] === undefined ? 80 : Number(match[2]);
  return isLoopback(match[1]) && port === req.socket.localPort;
}
