import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Pool } from 'undici';
import { encodeMultipart, multipartContentType } from '../../src/lib/multipart-write.js';
import { generateDashboard } from '../data/dashboards.js';
import { ratio, type Figure, type FigureContext, type FigureOutcome } from '../lib/figure.js';
import { platformToken } from '../lib/platform-token.js';
import { metric, repeatTasks } from '../lib/repeat.js';
import { eachConcurrently, endpointParts, fetchPaths, type Endpoint } from '../lib/seed.js';
import { withServer, type ServerKind, type ServerUnderTest } from '../lib/servers.js';
import type { LoadSpec } from '../load/run-load.js';
import { CONNECTIONS } from './get.js';
import { loadMeasurement } from './load-task.js';

/**
 * The embedded Document service (issue 34) beside bare node:http servers: create (one durable content file per
 * upload, as the baseline writes), get and list (dashcd keeps a content once read and a listing per revision,
 * issue 36; the baselines send the same bytes from memory). Documents are the bench's dashboards as JSON content (15–21 KB, a platform
 * dashboard's size), half of them typed `notebook`.
 */

/** One boundary for every body: the load generator sends one Content-Type header with all of them. */
const BOUNDARY = 'dashcdbench0123456789abcdef0123456789abcdef0123456789abcdef01';
const CONTENT_TYPE = multipartContentType(BOUNDARY);
/** Coprime with the connection count, so concurrent creates upload different bodies. */
const BODY_VARIANTS = 7;
const LIST_PAGE = 100;

const docsPrefix = (endpoint: Endpoint): string => `${endpointParts(endpoint).prefix}/platform/document/v1`;
const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

/** A create's multipart body as Monaco frames it; no `id` part, so every upload makes a new document. */
function createBody(seed: number, index: number, id?: string): string {
  const field = (name: string, body: string) => ({ name, contentType: 'text/plain; charset=utf-8', body });
  const name = `Bench ${index}`;
  return encodeMultipart(BOUNDARY, [
    field('name', name),
    field('type', index % 2 === 0 ? 'dashboard' : 'notebook'),
    ...(id === undefined ? [] : [field('id', id)]),
    field('isPrivate', 'false'),
    { name: 'content', filename: name, contentType: 'application/json', body: JSON.stringify(generateDashboard(seed, index)) },
  ]).toString('utf8');
}

/** The dashcd server with a platform token made as `dashcd token create` makes one (it reads the file at once). */
async function withDocumentServer<T>(ctx: FigureContext, body: (server: ServerUnderTest, token: string) => Promise<T>): Promise<T> {
  const dataDir = join(ctx.workDir, 'data');
  return withServer(ctx, 'dashcd', dataDir, async (server) => body(server, await platformToken(server)));
}

/** Stores documents 0…count-1 under stable ids (setup, not measured); returns their ids. */
async function seedDocuments(server: ServerUnderTest, token: string, seed: number, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, i) => `bench-doc-${i}`);
  const pool = new Pool(server.origin, { connections: 8 });
  try {
    await eachConcurrently(count, 8, async (i) => {
      const res = await pool.request({ path: `${docsPrefix(server.endpoint)}/documents`, method: 'POST', headers: { ...bearer(token), 'content-type': CONTENT_TYPE }, body: createBody(seed, i, ids[i]) });
      const text = await res.body.text();
      if (res.statusCode !== 201) throw new Error(`seeding document ${ids[i] ?? ''} answered ${res.statusCode}: ${text.slice(0, 300)}`);
    });
  } finally {
    await pool.close();
  }
  return ids;
}

interface Comparison {
  /** The dashcd server's load and the baseline's: the same spec and the same headers, each with its own origin. */
  spec: Omit<LoadSpec, 'origin' | 'headers'>;
  baseline: { kind: ServerKind; arg: string; label: string };
  label: string;
  minShare: number;
}

/** Interleaved runs of one load against dashcd and its bare baseline: req/s (with the goal) and p99 rows. */
async function compare(ctx: FigureContext, dashcd: ServerUnderTest, token: string, { spec, baseline, label, minShare }: Comparison): Promise<FigureOutcome> {
  return withServer(ctx, baseline.kind, baseline.arg, async (bare) => {
    const headers = { ...bearer(token), ...(spec.bodies ? { 'content-type': CONTENT_TYPE } : {}) };
    const samples = await repeatTasks(ctx, {
      dashcd: () => loadMeasurement(ctx, { ...spec, origin: dashcd.origin, headers }, dashcd.pid),
      // The baseline reads the same requests, token included (it ignores it).
      bare: () => loadMeasurement(ctx, { ...spec, origin: bare.origin, headers }, bare.pid),
    });
    const rps = metric(samples.dashcd, 'rps');
    const bareRps = metric(samples.bare, 'rps');
    const versus = { label: baseline.label, value: bareRps };
    return {
      rows: [
        { label: `${label} at ${CONNECTIONS} connections`, unit: 'req/s', better: 'higher', value: rps, baseline: versus, goal: { text: `≥ ${minShare}× baseline`, met: ratio(rps, bareRps) >= minShare } },
        { label: `${label} p99 latency at ${CONNECTIONS} connections`, unit: 'ms', better: 'lower', value: metric(samples.dashcd, 'p99'), baseline: { label: baseline.label, value: metric(samples.bare, 'p99') } },
      ],
      details: { loadGenerator: ctx.loadGenerator, serverCpuCores: metric(samples.dashcd, 'serverCpu'), bareServerCpuCores: metric(samples.bare, 'serverCpu'), p50Ms: metric(samples.dashcd, 'p50'), bareP50Ms: metric(samples.bare, 'p50') },
    };
  });
}

/** Journal and multipart parsing against one durable file per upload: at least half the bare rate. */
const CREATE_MIN_SHARE = 0.5;
/** Auth, routing, metadata and multipart framing (the content from memory once read) against the same bytes sent from memory. */
const GET_MIN_SHARE = 0.6;
/** Auth, paging a listing held per revision and joining 100 ready metadata texts against bytes prepared once. */
const LIST_MIN_SHARE = 0.3;

async function measureCreate(ctx: FigureContext): Promise<FigureOutcome> {
  const bareDir = join(ctx.workDir, 'bare');
  await mkdir(bareDir, { recursive: true });
  const bodies = Array.from({ length: BODY_VARIANTS }, (_, i) => createBody(ctx.seed + 1, i));
  return withDocumentServer(ctx, async (dashcd, token) => {
    const outcome = await compare(ctx, dashcd, token, {
      spec: { method: 'POST', paths: [`${docsPrefix(dashcd.endpoint)}/documents`], bodies, connections: CONNECTIONS, durationMs: ctx.loadDurationMs, okStatuses: [201] },
      baseline: { kind: 'bare-document-create', arg: bareDir, label: 'bare node:http writing each upload durably' },
      label: 'POST /platform/document/v1/documents (new document, durable)',
      minShare: CREATE_MIN_SHARE,
    });
    return { ...outcome, details: { ...outcome.details, bodyBytes: bodies.map((b) => Buffer.byteLength(b)) } };
  });
}

async function measureGet(ctx: FigureContext): Promise<FigureOutcome> {
  return withDocumentServer(ctx, async (dashcd, token) => {
    ctx.progress(`seeding ${ctx.sizes.dashboards} documents`);
    const ids = await seedDocuments(dashcd, token, ctx.seed, ctx.sizes.dashboards);
    const paths = ids.map((id) => `${docsPrefix(dashcd.endpoint)}/documents/${id}`);
    const bytesFile = join(ctx.workDir, 'documents.json');
    await writeFile(bytesFile, JSON.stringify(await fetchPaths(dashcd.origin, paths, bearer(token))));
    const outcome = await compare(ctx, dashcd, token, {
      spec: { method: 'GET', paths, connections: CONNECTIONS, durationMs: ctx.loadDurationMs, okStatuses: [200] },
      baseline: { kind: 'bare-get', arg: bytesFile, label: 'bare node:http, the same bytes from memory' },
      label: 'GET /platform/document/v1/documents/{id} (metadata and content, multipart)',
      minShare: GET_MIN_SHARE,
    });
    return { ...outcome, details: { ...outcome.details, documents: ids.length } };
  });
}

async function measureList(ctx: FigureContext): Promise<FigureOutcome> {
  return withDocumentServer(ctx, async (dashcd, token) => {
    ctx.progress(`seeding ${ctx.sizes.dashboards} documents`);
    const ids = await seedDocuments(dashcd, token, ctx.seed, ctx.sizes.dashboards);
    const queries: Record<string, string>[] = [
      { 'page-size': String(LIST_PAGE) },
      { filter: "type == 'dashboard'", sort: '-modificationInfo.lastModifiedTime', 'page-size': String(LIST_PAGE) },
      { filter: "name starts-with 'Bench 1' and not (originAppId exists)", sort: 'name', 'page-size': String(LIST_PAGE) },
    ];
    const paths = queries.map((query) => `${docsPrefix(dashcd.endpoint)}/documents?${new URLSearchParams(query).toString()}`);
    const bytesFile = join(ctx.workDir, 'lists.json');
    await writeFile(bytesFile, JSON.stringify(await fetchPaths(dashcd.origin, paths, bearer(token))));
    const outcome = await compare(ctx, dashcd, token, {
      spec: { method: 'GET', paths, connections: CONNECTIONS, durationMs: ctx.loadDurationMs, okStatuses: [200] },
      baseline: { kind: 'bare-get', arg: bytesFile, label: 'bare node:http, the same list bytes from memory' },
      label: `GET /platform/document/v1/documents (filter, sort, page of ${LIST_PAGE})`,
      minShare: LIST_MIN_SHARE,
    });
    return { ...outcome, details: { ...outcome.details, documents: ids.length, queries } };
  });
}

export const documentsCreateFigure: Figure = {
  name: 'documents-create',
  title: 'POST /platform/document/v1/documents req/s at 32 connections, durable',
  goal: `≥ ${CREATE_MIN_SHARE}× bare node:http writing each upload durably`,
  run: measureCreate,
};

export const documentsGetFigure: Figure = {
  name: 'documents-get',
  title: 'GET /platform/document/v1/documents/{id} req/s at 32 connections',
  goal: `≥ ${GET_MIN_SHARE}× bare node:http sending the same bytes from memory`,
  run: measureGet,
};

export const documentsListFigure: Figure = {
  name: 'documents-list',
  title: `GET /platform/document/v1/documents (page of ${LIST_PAGE}) req/s at 32 connections`,
  goal: `≥ ${LIST_MIN_SHARE}× bare node:http answering the same bytes from memory`,
  run: measureList,
};
