import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  readonly method: string;
  /** Path without the query. */
  readonly path: string;
}

export interface ProxyAnswer {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

/**
 * Decides each request's answer: `forward()` sends it on to the upstream and resolves to its answer. The handler
 * runs when the request has arrived, so what it computes (a reset time, an in-flight count) is of that moment —
 * unlike the fault server's scripted answers, which are fixed when scripted.
 */
export type ProxyHandler = (request: ProxiedRequest, forward: () => Promise<ProxyAnswer>) => Promise<ProxyAnswer>;

export interface InterceptingProxy {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  close(): Promise<void>;
}

/** A real HTTP proxy in front of `upstream` whose answers a test computes per request. */
export async function startInterceptingProxy(upstream: string, handle: ProxyHandler): Promise<InterceptingProxy> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const method = req.method ?? 'GET';
      const forward = async (): Promise<ProxyAnswer> => {
        const headers = Object.fromEntries(
          ['authorization', 'content-type', 'accept'].flatMap((name) => (typeof req.headers[name] === 'string' ? [[name, req.headers[name]]] : [])),
        ) as Record<string, string>;
        const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
        const answer = await fetch(`${upstream}${req.url ?? '/'}`, { method, headers, ...(body ? { body } : {}) });
        return { status: answer.status, headers: { 'content-type': answer.headers.get('content-type') ?? 'application/json' }, body: await answer.text() };
      };
      const path = new URL(req.url ?? '/', 'http://proxy.invalid').pathname;
      handle({ method, path }, forward).then(
        (answer) => {
          res.writeHead(answer.status, answer.headers ?? {});
          res.end(answer.body ?? '');
        },
        () => req.socket.destroy(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
