import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

/**
 * A small real HTTP server whose answers a test scripts, for faults our own server never produces: "429 with
 * Retry-After: 1 twice, then 200 with this body". Scripted answers are consumed in order by the first request
 * they match; when none matches, `handle` computes the answer, else the fallback answers — or, with `upstream`,
 * the request is forwarded there, so it can sit in front of the embedded server and inject faults into a real
 * conversation.
 */
export interface ScriptedAnswer {
  status?: number;
  headers?: Record<string, string>;
  /** A string is sent as-is; anything else is JSON-encoded; undefined sends no body. */
  body?: unknown;
  /** Wait this long before answering (timeouts). */
  delayMs?: number;
  /** Destroy the socket instead of answering: the client sees a reset / "other side closed". */
  hangUp?: boolean;
  /** Which requests this answer is for (default: any). `path` is matched against the path without the query. */
  match?: { method?: string; path?: string | RegExp };
}

export interface RecordedRequest {
  method: string;
  /** Path without the query. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
  /** performance.now() when the request arrived, in ms. */
  at: number;
  /** What was done with it. */
  answer: number | 'hang-up' | 'proxied';
}

/**
 * Computes the answer to a request when it arrives, so what it depends on (a reset time, how many requests are in
 * flight) is of that moment, unlike scripted answers, fixed when scripted. `forward()` sends the request to
 * `upstream` and resolves to its answer, every header included; the handler may return it, hold it, or replace it.
 * A handler that throws makes the server hang up.
 */
export type AnswerHandler = (request: RecordedRequest, forward: () => Promise<ScriptedAnswer>) => ScriptedAnswer | Promise<ScriptedAnswer>;

export interface FaultServerOptions {
  fallback?: ScriptedAnswer | ((request: RecordedRequest) => ScriptedAnswer);
  /** Forward unscripted requests to this origin instead of using the fallback (and the origin of `forward()`). */
  upstream?: string;
  /** Answers every unscripted request, in place of forwarding and the fallback. */
  handle?: AnswerHandler;
}

export interface FaultServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly requests: RecordedRequest[];
  script(...answers: ScriptedAnswer[]): void;
  /** Scripted answers not yet used. */
  pending(): number;
  /** Milliseconds between consecutive recorded requests. */
  gaps(): number[];
  close(): Promise<void>;
}

const DEFAULT_FALLBACK: ScriptedAnswer = { status: 404, body: { error: { code: 404, message: 'not scripted' } } };

export async function startFaultServer(options: FaultServerOptions = {}): Promise<FaultServer> {
  const queue: ScriptedAnswer[] = [];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();

  const server = createServer((req, res) => {
    const at = performance.now();
    void readBody(req).then(async (body) => {
      const url = new URL(req.url ?? '/', 'http://fault.invalid');
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body,
        at,
        answer: 0,
      };
      requests.push(recorded);
      const scripted = takeMatching(queue, recorded);
      if (scripted === undefined && options.handle === undefined && options.upstream !== undefined) {
        recorded.answer = 'proxied';
        pipeUpstream(options.upstream, req, body, res);
        return;
      }
      const answer = scripted ?? (await computeAnswer(options, recorded, () => fetchUpstream(options.upstream, req, body)));
      recorded.answer = answer.hangUp ? 'hang-up' : (answer.status ?? 200);
      await respond(answer, req, res);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script: (...answers) => void queue.push(...answers),
    pending: () => queue.length,
    gaps: () => requests.slice(1).map((r, i) => r.at - (requests[i]?.at ?? r.at)),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function takeMatching(queue: ScriptedAnswer[], request: RecordedRequest): ScriptedAnswer | undefined {
  const index = queue.findIndex((answer) => matches(answer.match, request));
  if (index < 0) return undefined;
  return queue.splice(index, 1)[0];
}

function matches(match: ScriptedAnswer['match'], request: RecordedRequest): boolean {
  if (match === undefined) return true;
  if (match.method !== undefined && match.method.toUpperCase() !== request.method) return false;
  if (match.path === undefined) return true;
  return typeof match.path === 'string' ? match.path === request.path : match.path.test(request.path);
}

async function computeAnswer(options: FaultServerOptions, request: RecordedRequest, forward: () => Promise<ScriptedAnswer>): Promise<ScriptedAnswer> {
  const { handle, fallback } = options;
  if (handle !== undefined) {
    try {
      return await handle(request, forward);
    } catch {
      return { hangUp: true };
    }
  }
  if (fallback === undefined) return DEFAULT_FALLBACK;
  return typeof fallback === 'function' ? fallback(request) : fallback;
}

async function respond(answer: ScriptedAnswer, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (answer.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
  if (answer.hangUp) {
    req.socket.destroy();
    return;
  }
  const body = answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
  const headers: Record<string, string> = { ...answer.headers };
  if (body !== '' && !Object.keys(headers).some((k) => k.toLowerCase() === 'content-type')) {
    headers['content-type'] = 'application/json; charset=utf-8';
  }
  res.writeHead(answer.status ?? 200, headers);
  res.end(body);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Sends the request on to `upstream`, resolving to the upstream's response (its body not yet read). */
function sendUpstream(upstream: string, req: IncomingMessage, body: string): Promise<IncomingMessage> {
  const target = new URL(req.url ?? '/', upstream);
  const headers = { ...req.headers, host: target.host };
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(target, { method: req.method, headers }, resolve);
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

function pipeUpstream(upstream: string, req: IncomingMessage, body: string, res: ServerResponse): void {
  sendUpstream(upstream, req, body).then(
    (upstreamRes) => {
      res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
      upstreamRes.pipe(res);
    },
    () => {
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 502, message: 'fault server: upstream unreachable' } }));
    },
  );
}

/** Headers of one hop, or of a body a handler may change: the answer is framed anew when it is sent on. */
const NOT_FORWARDED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/** The upstream's whole answer as a ScriptedAnswer, for `forward()`. */
async function fetchUpstream(upstream: string | undefined, req: IncomingMessage, body: string): Promise<ScriptedAnswer> {
  if (upstream === undefined) throw new Error('fault server: forward() needs the upstream option');
  const upstreamRes = await sendUpstream(upstream, req, body);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(upstreamRes.headers)) {
    if (value !== undefined && !NOT_FORWARDED.has(name)) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return { status: upstreamRes.statusCode ?? 502, headers, body: await readBody(upstreamRes) };
}
