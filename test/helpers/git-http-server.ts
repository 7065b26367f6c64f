import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GitHttpServerOptions {
  /** `GIT_PROJECT_ROOT`: repositories are served at `/<name>.git`. */
  projectRoot: string;
  /** Require HTTP Basic auth with this password (any user name), as GitHub and GitLab do for a token. */
  token?: string;
}

export interface GitHttpServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Every request's method and path, in order (`GET /dashboards.git/info/refs`). */
  readonly requests: string[];
  /** How many times a client fetched (asked for the refs of upload-pack). */
  fetches(): number;
  /** Stops answering (connections refused) until `start()`. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
}

/**
 * The git CLI's own smart-HTTP server (`git http-backend`, a CGI program) behind node:http on 127.0.0.1: a real
 * remote over loopback, with optional Basic auth. No network beyond this machine.
 */
export async function startGitHttpServer(options: GitHttpServerOptions): Promise<GitHttpServer> {
  const requests: string[] = [];
  let server: Server | undefined;
  let port = 0;
  const listen = async (): Promise<void> => {
    const next = createServer((req, res) => {
      requests.push(`${req.method ?? ''} ${(req.url ?? '').split('?')[0] ?? ''}`);
      if (options.token !== undefined && !authorised(req, options.token)) {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end('token required\n');
        return;
      }
      serveCgi(req, res, options.projectRoot);
    });
    await new Promise<void>((done, fail) => {
      next.once('error', fail);
      next.listen(port, '127.0.0.1', () => done());
    });
    port = (next.address() as AddressInfo).port;
    server = next;
  };
  await listen();
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    fetches: () => requests.filter((r) => r.endsWith('/info/refs')).length,
    async stop() {
      const current = server;
      server = undefined;
      if (!current) return;
      current.closeAllConnections();
      await new Promise<void>((done) => current.close(() => done()));
    },
    start: listen,
  };
}

function authorised(req: IncomingMessage, token: string): boolean {
  const match = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
  if (!match?.[1]) return false;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  return decoded.slice(decoded.indexOf(':') + 1) === token && decoded.indexOf(':') > 0;
}

function serveCgi(req: IncomingMessage, res: ServerResponse, projectRoot: string): void {
  const [path = '/', query = ''] = (req.url ?? '/').split('?');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    GIT_PROJECT_ROOT: projectRoot,
    GIT_HTTP_EXPORT_ALL: '1',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    REQUEST_METHOD: req.method ?? 'GET',
    PATH_INFO: decodeURIComponent(path),
    QUERY_STRING: query,
    CONTENT_TYPE: req.headers['content-type'] ?? '',
    REMOTE_ADDR: '127.0.0.1',
    ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] } : {}),
    ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
  };
  const cgi = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  req.pipe(cgi.stdin);
  cgi.on('error', () => res.writeHead(500).end());
  let head = Buffer.alloc(0);
  let headersDone = false;
  cgi.stdout.on('data', (chunk: Buffer) => {
    if (headersDone) return void res.write(chunk);
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    headersDone = true;
    writeCgiHead(res, head.subarray(0, end).toString('latin1'));
    res.write(head.subarray(end + 4));
  });
  cgi.stdout.on('end', () => (headersDone ? res.end() : res.writeHead(502).end()));
}

function writeCgiHead(res: ServerResponse, text: string): void {
  let status = 200;
  const headers: Record<string, string> = {};
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'status') status = Number(value.split(' ')[0]);
    else if (name) headers[name] = value;
  }
  res.writeHead(status, headers);
}
