import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ConsoleProblem } from '../../../src/console/console-data.js';
import { consoleTokens } from '../../../src/console/console-tokens.js';
import { isLoopback } from '../../../src/console/listener-host.js';
import { dashboardRows } from '../../../src/console/sync-rows.js';
import { systemClock } from '../../../src/lib/clock.js';
import { openTokenStore } from '../../../src/server/auth/token-store.js';
import type { PlanChange } from '../../../src/plan/build-plan.js';
import type { Dashboard } from '../../../src/schema/dashboard.js';

const body = (name: string): Dashboard => ({ dashboardMetadata: { name, owner: 'o' }, tiles: [] });
const op = { op: 'replace' as const, path: '/dashboardMetadata/name', value: 'x' };
const problem = (file: string, message: string): ConsoleProblem => ({ file, line: 2, col: 3, path: 'tiles[0]', message });

describe('console sync rows', () => {
  it('serve (live only): a row per dashboard with no sync status, its body read only when a page asks for it', async () => {
    let reads = 0;
    const rows = dashboardRows({ kind: 'live', dashboards: [{ id: 'i', name: 'N', body: async () => ((reads += 1), { tiles: [] }) }] });
    expect(reads).toBe(0);
    const { body, ...facts } = rows[0] ?? { body: undefined };
    expect(await body).toEqual({ tiles: [] });
    expect(reads).toBe(1);
    expect(facts).toEqual({ key: 'i', name: 'N', status: 'live', kind: 'dashboard', file: undefined, detail: '', change: undefined, problems: [] });
  });

  it('names each row\'s kind: a classic dashboard, a platform dashboard or notebook by its document kind, else a document', () => {
    const never = (): Promise<unknown> => Promise.reject(new Error('a list never reads a body'));
    const live = dashboardRows({ kind: 'live', dashboards: [
      { id: 'p', name: 'P', documentKind: 'dashboard', body: never },
      { id: 'n', name: 'N', documentKind: 'notebook', body: never },
      { id: 'u', name: 'U', body: never },
    ] });
    expect(live.map((r) => [r.key, r.kind])).toEqual([['p', 'platform dashboard'], ['n', 'notebook'], ['u', 'dashboard']]);
    const desired = dashboardRows({
      kind: 'desired',
      changes: [{ action: 'unchanged', id: 'n', name: 'N', file: 'n.json', kind: 'document' }],
      shown: { n: { documentKind: 'notebook', body: () => ({ document: { kind: 'notebook', name: 'N' }, sections: [] }) } },
      problems: [problem('bad.yaml', 'first')],
      results: {},
      orphans: [{ id: 'o', name: 'O', kind: 'document' }, { id: 'c', name: 'C', kind: 'dashboard' }],
    });
    expect(desired.map((r) => [r.key, r.kind])).toEqual([['n', 'notebook'], ['bad.yaml', undefined], ['c', 'dashboard'], ['o', 'document']]);
  });

  it('says why each planned dashboard is drifted or orphaned, and carries its change and body', () => {
    const changes: PlanChange[] = [
      { action: 'update', id: 'u1', name: 'U1', file: 'u1.yaml', desired: body('U1'), patch: [op], before: ['y'] },
      { action: 'adopt', id: 'u2', name: 'U2', file: 'u2.yaml', desired: body('U2'), patch: [op, op], before: ['y', 'y'] },
      { action: 'create', id: 'c', name: 'C', file: 'c.yaml', desired: body('C') },
      { action: 'delete', id: 'd', name: 'D' },
      { action: 'orphan', id: 'o', name: 'O' },
      { action: 'unchanged', id: 's', name: 'S', file: 's.yaml' },
    ];
    const rows = dashboardRows({ kind: 'desired', changes, problems: [], results: {}, shown: { s: { body: () => body('S') }, d: { body: () => body('D') } } });
    expect(rows.map((r) => [r.key, r.status, r.detail, r.file])).toEqual([
      ['s', 'synced', '', 's.yaml'],
      ['c', 'drifted', 'not on the target yet', 'c.yaml'],
      ['u1', 'drifted', '1 difference from the file', 'u1.yaml'],
      ['u2', 'drifted', '2 differences from the file', 'u2.yaml'],
      ['d', 'orphan', 'no file; pruning deletes it', undefined],
      ['o', 'orphan', 'no file; kept (pruning is off)', undefined],
    ]);
    const byKey = new Map(rows.map((r) => [r.key, r]));
    expect(byKey.get('c')?.body).toEqual(body('C'));
    expect(byKey.get('s')?.body).toEqual(body('S'));
    expect(byKey.get('d')?.body).toEqual(body('D'));
    expect(byKey.get('u2')?.change).toBe(changes[1]);
    expect(byKey.get('u1')?.problems).toEqual([]);
  });

  it("marks a file whose last write was rejected failed, with the time and error when there is one; other results don't", () => {
    const rows = dashboardRows({
      kind: 'desired',
      changes: [
        { action: 'unchanged', id: 'a', name: 'A', file: 'a.yaml' },
        { action: 'unchanged', id: 'b', name: 'B', file: 'b.yaml' },
      ],
      problems: [],
      results: { 'a.yaml': { result: 'rejected', at: '2026-11-28T10:00:00Z' }, 'b.yaml': { result: 'written', at: '2026-11-28T10:00:00Z' } },
    });
    expect(rows.map((r) => [r.key, r.status, r.detail])).toEqual([
      ['b', 'synced', ''],
      ['a', 'failed', 'rejected at 2026-11-28T10:00:00Z'],
    ]);
  });

  it("gives a file's problems to its row, and a file with problems and no plan an invalid row of its own", () => {
    const rows = dashboardRows({
      kind: 'desired',
      changes: [{ action: 'unchanged', id: 'a', name: 'A', file: 'a.yaml' }],
      problems: [problem('a.yaml', 'warned'), problem('bad.yaml', 'first'), problem('bad.yaml', 'second')],
      results: {},
    });
    expect(rows).toEqual([
      { key: 'a', name: 'A', status: 'synced', kind: 'dashboard', file: 'a.yaml', detail: '', change: { action: 'unchanged', id: 'a', name: 'A', file: 'a.yaml' }, problems: [problem('a.yaml', 'warned')], body: undefined },
      { key: 'bad.yaml', name: 'bad.yaml', status: 'invalid', kind: undefined, file: 'bad.yaml', detail: 'tiles[0]: first', change: undefined, problems: [problem('bad.yaml', 'first'), problem('bad.yaml', 'second')], body: undefined },
    ]);
  });

  it('lists an orphan of the last full pass as an orphan change without a body', () => {
    const [row] = dashboardRows({ kind: 'desired', changes: [], problems: [], results: {}, orphans: [{ id: 'x', name: 'X' }] });
    expect(row).toEqual({ key: 'x', name: 'X', status: 'orphan', kind: 'dashboard', file: undefined, detail: 'no file; kept (pruning is off)', change: { action: 'orphan', id: 'x', name: 'X' }, problems: [], body: undefined });
  });

  it('orders by status (synced, drifted, invalid, orphan, failed), then by name', () => {
    const rows = dashboardRows({
      kind: 'desired',
      changes: [
        { action: 'orphan', id: 'o', name: 'A orphan' },
        { action: 'unchanged', id: 'f', name: 'A failed', file: 'f.yaml' },
        { action: 'create', id: 'c2', name: 'B new', file: 'c2.yaml', desired: body('B') },
        { action: 'create', id: 'c1', name: 'A new', file: 'c1.yaml', desired: body('A') },
        { action: 'unchanged', id: 's', name: 'Z synced', file: 's.yaml' },
      ],
      problems: [problem('bad.yaml', 'x')],
      results: { 'f.yaml': { result: 'failed', at: 't' } },
    });
    expect(rows.map((r) => r.status)).toEqual(['synced', 'drifted', 'drifted', 'invalid', 'orphan', 'failed']);
    expect(rows.map((r) => r.name)).toEqual(['Z synced', 'A new', 'B new', 'bad.yaml', 'A orphan', 'A failed']);
  });
});

describe('console data helpers', () => {
  it("reads the API's token stores: their environments, a token's facts by secret, and by id as they are now", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dashcd-console-tokens-'));
    try {
      const store = await openTokenStore({ file: join(dir, 'tokens.json'), clock: systemClock });
      const created = await store.create({ name: 'read', scopes: ['ReadConfig'] });
      const tokens = consoleTokens({ ids: () => ['dev'], lookup: (env) => (env === 'dev' ? { tokens: store } : undefined) });
      expect(tokens.environments()).toEqual(['dev']);
      expect(tokens.verify('dev', created.token)).toMatchObject({ id: created.info.id, scopes: ['ReadConfig'] });
      expect(tokens.current('dev', created.info.id)).toMatchObject({ id: created.info.id, scopes: ['ReadConfig'] });
      expect(tokens.current('dev', 'other')).toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a token store of an environment that is gone knows no token', () => {
    const tokens = consoleTokens({ ids: () => ['dev'], lookup: () => undefined });
    expect(tokens.verify('dev', 'x')).toBeUndefined();
    expect(tokens.current('dev', 'id')).toBeUndefined();
  });

  it('takes brackets only around a whole IPv6 literal', () => {
    expect(['[local]host', 'local[host]', '[::1]x', 'x[::1]'].map(isLoopback)).toEqual([false, false, false, false]);
  });

  it('reads an unchanged file\'s body only when a page draws its row, never to list the rows', () => {
    let reads = 0;
    const rows = dashboardRows({
      kind: 'desired',
      changes: [{ action: 'unchanged', id: 'n', name: 'N', file: 'n.json', kind: 'document' }, { action: 'unchanged', id: 's', name: 'S', file: 's.yaml' }],
      shown: {
        n: { documentKind: 'notebook', body: () => ((reads += 1), { document: { kind: 'notebook', name: 'N' }, sections: [] }) },
        s: { body: () => ((reads += 1), body('S')) },
      },
      problems: [],
      results: {},
    });
    expect(rows.map((r) => [r.key, r.kind, r.status])).toEqual([['n', 'notebook', 'synced'], ['s', 'dashboard', 'synced']]);
    expect(reads).toBe(0);
    expect(rows.find((r) => r.key === 's')?.body).toEqual(body('S'));
    expect(reads).toBe(1);
  });
});
