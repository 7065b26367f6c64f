import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { startModuleWorker } from '../../src/lib/module-worker.js';
import { DashboardId } from '../../src/schema/ids.js';
import { HttpError } from '../../src/server/http/http-error.js';
import { createDashboardBodyPool, OFFLOAD_BYTES, type BodyPoolOptions, type DashboardBodyPool } from '../../src/server/routes/dashboard-body-pool.js';
import { prepareDashboardBody, type BodyTarget } from '../../src/server/routes/dashboard-validation.js';
import { prepareDashboard } from '../../src/server/store/dashboard-document.js';
import { CORPUS_DASHBOARDS_DIR } from '../helpers/corpus.js';
import { captureLog } from '../helpers/log-capture.js';
import { api, dashboardsUrl, startTestServer, type TestServer } from '../helpers/server.js';

const POOL_MODULE = new URL('../../src/server/routes/dashboard-body-pool.ts', import.meta.url).href;
const ID = DashboardId.parse('77777777-aaaa-4bbb-8ccc-000000000001');
const REPLACE: BodyTarget = { mode: 'replace', id: ID };
const corpus = readdirSync(CORPUS_DASHBOARDS_DIR)
  .filter((name) => name.endsWith('.json'))
  .map((name) => readFileSync(join(CORPUS_DASHBOARDS_DIR, name)));
const bytes = (text: string): Buffer => Buffer.from(text);
/** The corpus as JSON.stringify writes it (as dashcd sends it): stored from slices of the text, not serialised again. */
const compactCorpus = corpus.map((body) => bytes(JSON.stringify(JSON.parse(body.toString('utf8')))));
/** A worker (eval'd, so no module loading) that does `onMessage` with each body it is sent. */
const evalWorker = (onMessage: string): Worker => new Worker(`require('node:worker_threads').parentPort.on('message', () => { ${onMessage} })`, { eval: true });

/** A replace of the dashboard the body names (exports carry their id), else of ID. */
function targetOf(body: Buffer): BodyTarget {
  const named = DashboardId.safeParse((JSON.parse(body.toString('utf8')) as { id?: unknown }).id);
  return { mode: 'replace', id: named.success ? named.data : ID };
}

/** The answer for one body on the calling thread: the prepared dashboard, or the error's status, message, violations. */
function inline(body: Uint8Array, target: BodyTarget): unknown {
  try {
    return prepareDashboardBody(body, target);
  } catch (error) {
    return settledError(error);
  }
}

function settledError(error: unknown): unknown {
  if (!(error instanceof HttpError)) throw error;
  return { status: error.status, message: error.message, violations: error.violations };
}

const viaPool = (pool: DashboardBodyPool, body: Uint8Array, target: BodyTarget): Promise<unknown> =>
  pool.prepare(body, target).then((prepared) => prepared, settledError);

/** Bad bodies of every kind the parser and the schema refuse, padded past the offload size. */
const pad = ' '.repeat(10_000);
const badBodies = [
  `{"dashboardMetadata": {"name": "x"}, ${pad}`,
  `{"dashboardMetadata": {"name": 1, "owner": "o"}, "tiles": "no"}${pad}`,
  `${'['.repeat(100)}${']'.repeat(100)}${pad}`,
  `{"dashboardMetadata": {"name": "n", "owner": "o"}, "tiles": [], "__proto__": {}}${pad}`,
  `{"id": "88888888-aaaa-4bbb-8ccc-000000000001", "dashboardMetadata": {"name": "n", "owner": "o"}, "tiles": []}${pad}`,
  `[1]${pad}`,
];

describe('dashboard body pool: bodies parsed, validated and serialised on worker threads', () => {
  const pools: DashboardBodyPool[] = [];
  const open = (options: BodyPoolOptions): DashboardBodyPool => {
    const pool = createDashboardBodyPool(options);
    pools.push(pool);
    return pool;
  };
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((pool) => pool.close()));
  });

  it('gives exactly what the calling thread gives, for every corpus dashboard and every kind of bad body', async () => {
    let started = 0;
    const pool = open({ workers: 2, offloadBytes: 0, startWorker: () => (started++, startModuleWorker('dashboard-body-worker', POOL_MODULE)) });
    const jobs: Array<[Buffer, BodyTarget]> = [
      ...[...corpus, ...compactCorpus].map((body): [Buffer, BodyTarget] => [body, targetOf(body)]),
      ...badBodies.map((text): [Buffer, BodyTarget] => [bytes(text), REPLACE]),
      // Not UTF-8, past the offload size: refused on the worker as on the main thread.
      [Buffer.concat([bytes('{"a":"'), Buffer.alloc(9000, 0xff), bytes('"}')]), REPLACE],
    ];
    const answers = await Promise.all(jobs.map(([body, target]) => viaPool(pool, body, target)));
    expect(answers).toEqual(jobs.map(([body, target]) => inline(body, target)));
    // Every corpus dashboard but the two its README says must be rejected (in both spellings), and no bad body.
    expect(answers.filter((answer) => 'members' in (answer as object))).toHaveLength(2 * (corpus.length - 2));
    expect(answers.filter((answer) => (answer as { status?: number }).status === 400)).toHaveLength(badBodies.length + 5);
    // The compact spelling, sliced on a worker, is what serialising the parsed body gives.
    compactCorpus.forEach((body, i) => {
      const answer = answers[corpus.length + i] as object;
      if ('members' in answer) expect(answer).toEqual(prepareDashboard(JSON.parse(body.toString('utf8')) as Record<string, unknown>));
    });
    // Concurrent bodies spread over both workers.
    expect(started).toBe(2);
  });

  it('keeps small bodies on the calling thread, so a server that only sees them starts no worker', async () => {
    let started = 0;
    const pool = open({ workers: 2, startWorker: () => (started++, startModuleWorker('dashboard-body-worker', POOL_MODULE)) });
    const small = bytes(JSON.stringify({ dashboardMetadata: { name: 'n', owner: 'o' }, tiles: [] }));
    expect(await viaPool(pool, small, { mode: 'create' })).toEqual(inline(small, { mode: 'create' }));
    expect(started).toBe(0);
    const large = corpus.find((body) => body.length >= OFFLOAD_BYTES) as Buffer;
    expect(await viaPool(pool, large, REPLACE)).toEqual(inline(large, REPLACE));
    expect(started).toBe(1);
  });

  it('with no workers (the default), prepares every body on the calling thread', async () => {
    let started = 0;
    const start = (): Worker => (started++, startModuleWorker('dashboard-body-worker', POOL_MODULE));
    for (const pool of [open({ workers: 0, offloadBytes: 0, startWorker: start }), open({ offloadBytes: 0, startWorker: start })]) {
      const body = corpus[0] as Buffer;
      expect(await viaPool(pool, body, REPLACE)).toEqual(inline(body, REPLACE));
    }
    expect(started).toBe(0);
  });

  it('finishes the bodies of a worker that dies on the calling thread, says so once, stops the others and starts no other', async () => {
    const { lines, log } = captureLog('warn');
    const started: Worker[] = [];
    const exited: Array<Promise<unknown>> = [];
    // The first worker dies on its first body; the second is a real one, stopped when the first dies.
    const start = (): Worker => {
      const worker = started.length === 0 ? evalWorker('process.exit(3)') : startModuleWorker('dashboard-body-worker', POOL_MODULE);
      started.push(worker);
      exited.push(once(worker, 'exit'));
      return worker;
    };
    const pool = open({ workers: 2, offloadBytes: 0, log, startWorker: start });
    const bodies = [...corpus.slice(0, 6), bytes(badBodies[1] as string)];
    expect(await Promise.all(bodies.map((body) => viaPool(pool, body, REPLACE)))).toEqual(bodies.map((body) => inline(body, REPLACE)));
    expect(started).toHaveLength(2);
    await exited[1];
    const later = corpus[1] as Buffer;
    expect(await viaPool(pool, later, REPLACE)).toEqual(inline(later, REPLACE));
    expect(started).toHaveLength(2);
    expect(lines.filter((line) => String(line['msg']).includes('body worker failed'))).toHaveLength(1);
  });

  it('answers each body once when its worker throws (an error, then an exit)', async () => {
    const { lines, log } = captureLog('warn');
    const pool = open({ workers: 1, offloadBytes: 0, log, startWorker: () => evalWorker("throw new Error('boom')") });
    const answers = await Promise.all(corpus.slice(0, 4).map((body) => viaPool(pool, body, REPLACE)));
    expect(answers).toEqual(corpus.slice(0, 4).map((body) => inline(body, REPLACE)));
    expect(lines.filter((line) => String(line['msg']).includes('body worker failed'))).toHaveLength(1);
  });

  it('prepares bodies on the calling thread when no worker can be started', async () => {
    const { lines, log } = captureLog('warn');
    const pool = open({ workers: 2, offloadBytes: 0, log, startWorker: () => { throw new Error('no threads here'); } });
    const body = corpus[0] as Buffer;
    expect(await viaPool(pool, body, REPLACE)).toEqual(inline(body, REPLACE));
    expect(await viaPool(pool, body, REPLACE)).toEqual(inline(body, REPLACE));
    expect(lines.filter((line) => String(line['msg']).includes('body worker failed'))).toHaveLength(1);
  });

  it('answers the bodies still in a worker when the pool closes', async () => {
    // A worker that never answers: every body is still held when close() comes.
    const pool = open({ workers: 1, offloadBytes: 0, startWorker: () => evalWorker('') });
    const pending = corpus.map((body) => viaPool(pool, body, REPLACE));
    await pool.close();
    expect(await Promise.all(pending)).toEqual(corpus.map((body) => inline(body, REPLACE)));
  });
});

const idOf = (i: number): string => `77777777-aaaa-4bbb-8ccc-${String(i).padStart(12, '0')}`;

describe('the server over HTTP, with and without body workers', () => {
  const servers: TestServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  it('answers every PUT, validator call and GET of the corpus and of bad bodies byte for byte alike', async () => {
    const [pooled, inlineOnly] = await Promise.all([startTestServer({ bodyWorkers: 1 }), startTestServer({ bodyWorkers: 0 })]);
    servers.push(pooled as TestServer, inlineOnly as TestServer);
    const exchange = async (server: TestServer): Promise<unknown[]> => {
      const seen: unknown[] = [];
      // Each corpus dashboard under an id of its own (exports name theirs); the bad bodies as they are.
      const named = (text: string, i: number): string => text.replace(/"id"\s*:\s*"[^"]*"/, `"id": "${idOf(i)}"`);
      const texts = [
        ...corpus.map((body, i) => named(body.toString('utf8'), i)),
        ...corpus.map((body, i) => JSON.stringify(JSON.parse(named(body.toString('utf8'), corpus.length + i)))),
        ...badBodies,
      ];
      // Concurrent, so the pooled server has several bodies at its worker at once.
      await Promise.all(
        texts.map(async (body, i) => {
          const id = idOf(i);
          const put = await api(dashboardsUrl(server, `/${id}`), { method: 'PUT', token: server.token, body });
          const check = await api(dashboardsUrl(server, `/${id}/validator`), { method: 'POST', token: server.token, body });
          const got = await api(dashboardsUrl(server, `/${id}`), { token: server.token });
          seen[i] = [put.status, put.text.replaceAll(server.url, ''), check.status, check.text, got.status, got.text];
        }),
      );
      return seen;
    };
    const [viaWorker, viaMain] = await Promise.all([exchange(pooled as TestServer), exchange(inlineOnly as TestServer)]);
    expect(viaWorker).toEqual(viaMain);
    expect(viaWorker.filter((answer) => (answer as number[])[0] === 201)).toHaveLength(2 * (corpus.length - 2));
    // A dashboard sent compact (stored from slices of its text) reads back exactly as when sent pretty (serialised).
    corpus.forEach((_, i) => {
      const [pretty, compact] = [viaWorker[i], viaWorker[corpus.length + i]] as unknown[][];
      expect(String(compact?.[5]).replaceAll(idOf(corpus.length + i), idOf(i))).toBe(pretty?.[5]);
    });
  });
});
