import type { IncomingMessage } from 'node:http';

/**
 * Whether a request is the console's: `/ui` and below, and a browser's GET of `/` (someone who opened the server's
 * address), which the console sends on to `/ui`. Apart from the console's handler so that `serve` can tell a console
 * request before it has loaded the console (serve-server.ts). An API client asking for `/` gets the API's 404.
 */
export function isConsoleRequest(req: IncomingMessage): boolean {
  const target = req.url ?? '/';
  return /^\/ui(?:[/?#]|$)/.test(target) || isBrowserAtRoot(req);
}

/** A GET or HEAD of `/` that accepts HTML: an address typed into a browser. */
export function isBrowserAtRoot(req: IncomingMessage): boolean {
  return (req.url === '/' || req.url?.startsWith('/?') === true) && (req.method === 'GET' || req.method === 'HEAD') && (req.headers.accept ?? '').includes('text/html');
}
