import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, runDashcd, type CliResult, type Project } from '../helpers/cli.js';
import { markdownDashboard } from '../helpers/dashboards.js';

/**
 * A target that is not ours to trust (compromised, or a man in the middle) puts escape sequences and line breaks in
 * what it answers: retitle the terminal, erase the line above and write a fake one in red, and start a line of its
 * own that GitHub Actions would run as a workflow command. The CLI prints its words, never its controls.
 */
const HOSTILE = 'nope \u001b]0;PWNED-TITLE\u0007\u001b[2K\u001b[1A\u001b[31mFAKE: all good\n::error title=Injected::from the target\r\u009b2J';
/** The same text as the CLI shows it: each control character one space. */
const SHOWN = 'nope  ]0;PWNED-TITLE  [2K [1A [31mFAKE: all good ::error title=Injected::from the target  2J';
/** Anything that could drive a terminal or end a line, besides the line feeds dashcd writes itself. */
const CONTROL_BUT_LF = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/;

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

function listen(handler: Handler): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/e/hostile` })));
}

/** 403 to every request, with an error envelope whose message (and a violation) hold the hostile text. */
const forbidding: Handler = (_req, res) => {
  res.statusCode = 403;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ error: { code: 403, message: HOSTILE, constraintViolations: [{ path: 'x\u001b[1A', message: HOSTILE }] } }));
};

function expectHarmless(result: CliResult): void {
  for (const output of [result.stdout, result.stderr]) {
    expect(output).not.toMatch(CONTROL_BUT_LF);
    expect(output.split('\n').filter((line) => line.trimStart().startsWith('::'))).toEqual([]);
  }
}

let project: Project | undefined;
let target: { server: Server; url: string } | undefined;
afterEach(async () => {
  const server = target?.server;
  if (server) await new Promise((resolve) => server.close(resolve));
  await project?.cleanup();
  project = undefined;
  target = undefined;
});

async function dashcd(argv: string[], handler: Handler): Promise<CliResult> {
  project = await createProject({ 'dashboards/ok.yaml': markdownDashboard({ name: 'Ok', owner: 'me@example.com', markdown: 'hi' }) });
  target = await listen(handler);
  return runDashcd(argv, { cwd: project.root, env: { DT_ENV_URL: target.url, DT_API_TOKEN: 'dt0c01.test' } });
}

describe('a target that redirects', () => {
  it('is a target failure (exit 4) saying where to point dashcd, not an unexpected error; the token does not follow', async () => {
    const followed: string[] = [];
    const other = await listen((req, res) => {
      followed.push(req.headers.authorization ?? 'none');
      res.end('{}');
    });
    const seen: string[] = [];
    try {
      const result = await dashcd(['plan'], (req, res) => {
        seen.push(req.url ?? '');
        res.writeHead(302, { location: `${other.url}${req.url ?? ''}` }).end();
      });
      expect(result.code, result.stderr).toBe(4);
      expect(result.stderr).toContain('302 from GET ');
      expect(result.stderr).toContain('the target redirects, and dashcd follows no redirect (the token stays with this host) — set DT_ENV_URL to the address it leads to');
      expect(result.stderr).not.toContain('unexpected error');
      expect(seen.length).toBeGreaterThan(0);
      expect(followed).toEqual([]);
    } finally {
      await new Promise((resolve) => other.server.close(resolve));
    }
  });
});

describe("a target's error envelope holding escape sequences and line breaks", () => {
  for (const argv of [['plan'], ['pull', '--all'], ['events', 'pull', '--since', '1d']]) {
    it(`dashcd ${argv.join(' ')} prints its message as one harmless line (exit 4)`, async () => {
      const result = await dashcd(argv, forbidding);
      expect(result.code, result.stderr).toBe(4);
      expectHarmless(result);
      expect(result.stderr).toContain(`dashcd ${argv.slice(0, argv[0] === 'events' ? 2 : 1).join(' ')}: 403 from ${target?.url}: ${SHOWN} — `);
    });
  }
});

describe('dashcd pull from a target listing ids and names that hold escape sequences', () => {
  const ID = '1111\u001b]0;PWNED\u0007\u001b[31m\n::error title=Injected::id';
  const listing: Handler = (req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const prefix = '/e/hostile/api/config/v1/dashboards';
    res.setHeader('content-type', 'application/json');
    if (path === prefix) return res.end(JSON.stringify({ dashboards: [{ id: ID, name: 'Evil\u001b[2K', owner: 'someone' }] }));
    if (decodeURIComponent(path.slice(prefix.length + 1)) !== ID) {
      res.statusCode = 404;
      return res.end(JSON.stringify({ error: { code: 404, message: 'not found' } }));
    }
    return res.end(JSON.stringify({ id: ID, dashboardMetadata: { name: 'Evil\u001b[2K', owner: 'someone' }, tiles: [] }));
  };

  it('names the pulled dashboard by its id without a control character', async () => {
    const result = await dashcd(['pull', '--all'], listing);
    expect(result.code, result.stderr).toBe(0);
    expectHarmless(result);
    expect(result.stdout).toMatch(/^↓ pulled {2}1111 \]0;PWNED {2}\[31m ::error title=Injected::id {2}dashboards\/\S+\.yaml\n$/);
  });
});
