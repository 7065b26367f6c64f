import { describe, expect, it } from 'vitest';
import type { ApplyOutcome } from '../../../src/apply/apply-plan.js';
import { decideWrites, fileResult, forgetMissing, freshMemory, noteRefusal, recordSynced, settleFiles, settleOrphans, type FileChange, type Orphan, type PassMemory } from '../../../src/daemon/drift-rules.js';
import type { Plan, PlanChange } from '../../../src/plan/build-plan.js';

const body = { dashboardMetadata: { name: 'x' }, tiles: [] } as never;

const create = (id: string): FileChange => ({ action: 'create', id, name: `n-${id}`, file: `${id}.yaml`, desired: body });
const update = (id: string): FileChange => ({ action: 'update', id, name: `n-${id}`, file: `${id}.yaml`, desired: body, patch: [{ op: 'replace', path: '/a', value: 1 }], before: [0] });
const adopt = (id: string): FileChange => ({ action: 'adopt', id, name: `n-${id}`, file: `${id}.yaml`, desired: body, patch: [], before: [] });
const unchanged = (id: string): FileChange => ({ action: 'unchanged', id, name: `n-${id}`, file: `${id}.yaml` });
const orphan = (id: string): Orphan => ({ action: 'orphan', id, name: `n-${id}` });
const deletion = (id: string): Orphan => ({ action: 'delete', id, name: `n-${id}` });

function planOf(changes: PlanChange[], refused?: string): Plan {
  const summary = { create: 0, adopt: 0, update: 0, delete: 0, unchanged: 0, orphan: 0 };
  for (const change of changes) summary[change.action]++;
  return { changes, summary, scope: 'full', prune: { enabled: true, ...(refused !== undefined ? { refused } : {}) }, target: 't' };
}

const memoryOf = (synced: Record<string, string>, leftBehind: string[] = [], lastRefusal?: string): PassMemory => ({ synced: new Map(Object.entries(synced)), leftBehind: new Set(leftBehind), lastRefusal, warned: new Map() });

const applied = (change: PlanChange): ApplyOutcome => ({ action: change.action as 'create', id: change.id, name: change.name, file: `${change.id}.yaml`, status: 'applied' });
const failed = (change: PlanChange, error = 'boom'): ApplyOutcome => ({ action: change.action as 'update', id: change.id, name: change.name, file: `${change.id}.yaml`, status: 'failed', error });

describe('drift rules: what a pass writes', () => {
  const hashes = new Map([['a', 'h1'], ['b', 'h2'], ['c', 'h3'], ['d', 'h4']]);

  it('calls a difference on a file unchanged since live last matched it drift (an update, or a create: deleted on the target)', () => {
    const plan = planOf([create('a'), update('b'), update('c'), unchanged('d')]);
    const { drift } = decideWrites(plan, hashes, memoryOf({ a: 'h1', b: 'h2', c: 'old', d: 'h4' }), true);
    expect(drift.map((c) => c.id)).toEqual(['a', 'b']);
  });

  it('never calls a change drift when the file changed, was never synced, or has no hash; adopt is never drift', () => {
    const plan = planOf([update('a'), update('b'), update('x'), adopt('c')]);
    const { drift } = decideWrites(plan, hashes, memoryOf({ a: 'other', c: 'h3' }), false);
    expect(drift).toEqual([]);
    // No hash for `x` and no memory of it: undefined is not a match.
    expect(decideWrites(planOf([update('x')]), hashes, freshMemory(), false).drift).toEqual([]);
  });

  it('self-healing writes the whole plan, drift included (the same plan object)', () => {
    const plan = planOf([update('a'), create('b')]);
    const decided = decideWrites(plan, hashes, memoryOf({ a: 'h1', b: 'h2' }), true);
    expect(decided.plan).toBe(plan);
    expect(decided.drift).toHaveLength(2);
  });

  it('without self-heal leaves drift out of the writes, keeping the other changes and any orphan of the same id', () => {
    const plan = planOf([update('a'), update('b'), orphan('a'), deletion('z')]);
    const decided = decideWrites(plan, hashes, memoryOf({ a: 'h1' }), false);
    expect(decided.plan.changes.map((c) => `${c.action} ${c.id}`)).toEqual(['update b', 'orphan a', 'delete z']);
    expect(decided.plan.summary).toEqual(plan.summary);
    expect(decided.plan.target).toBe('t');
    // Nothing drifted: the plan as it is.
    expect(decideWrites(plan, hashes, freshMemory(), false).plan).toBe(plan);
  });
});

describe('drift rules: prune refusals', () => {
  it('counts every refusal, announces it only when its reason is new, and remembers the reason', () => {
    const first = noteRefusal('too many', freshMemory());
    expect(first).toEqual({ count: true, announce: true, memory: { ...freshMemory(), lastRefusal: 'too many' } });
    const again = noteRefusal('too many', first.memory);
    expect(again).toMatchObject({ count: true, announce: false });
    expect(noteRefusal('empty folder', again.memory)).toMatchObject({ count: true, announce: true });
  });

  it('a pass without a refusal counts and announces nothing and forgets the last reason, so a later one is news again', () => {
    const cleared = noteRefusal(undefined, memoryOf({}, [], 'too many'));
    expect(cleared).toEqual({ count: false, announce: false, memory: memoryOf({}, [], undefined) });
    expect(noteRefusal('too many', cleared.memory).announce).toBe(true);
  });
});

describe('drift rules: per-file results', () => {
  it('names each write by its change, and drift by whether it was reverted or only reported', () => {
    expect(fileResult(create('a'), applied(create('a')), false, true)).toBe('created');
    expect(fileResult(adopt('a'), applied(adopt('a')), false, true)).toBe('adopted');
    expect(fileResult(update('a'), applied(update('a')), false, true)).toBe('updated');
    expect(fileResult(update('a'), applied(update('a')), true, true)).toBe('drift-reverted');
    expect(fileResult(update('a'), undefined, true, false)).toBe('drift-reported');
    expect(fileResult(update('a'), failed(update('a')), false, true)).toBe('failed');
    expect(fileResult(update('a'), failed(update('a')), true, true)).toBe('failed');
    expect(fileResult(unchanged('a'), undefined, true, false)).toBe('unchanged');
    // Never attempted (the pass stopped, or the write was left out): nothing to record.
    expect(fileResult(update('a'), undefined, false, true)).toBeUndefined();
    expect(fileResult(create('a'), undefined, true, true)).toBeUndefined();
  });

  it('settles every file of the plan, orphans and deletions aside, with its error and whether its change is still pending', () => {
    const plan = planOf([create('a'), update('b'), update('c'), unchanged('d'), update('e'), update('f'), orphan('o'), deletion('z')]);
    const outcomes = [applied(create('a')), failed(update('b'), 'HTTP 500'), { action: 'delete', id: 'b', name: 'n-b', status: 'deleted' } as ApplyOutcome];
    const settled = settleFiles(plan, { outcomes, rejected: new Map([['f', 'bad tile']]), drifted: new Set(['c']), hashes: new Map() }, false);
    expect(settled.files.map(({ change, ...rest }) => ({ file: change.file, ...rest }))).toEqual([
      { file: 'a.yaml', id: 'a', result: 'created', pending: false },
      { file: 'b.yaml', id: 'b', result: 'failed', error: 'HTTP 500', pending: false },
      { file: 'c.yaml', id: 'c', result: 'drift-reported', pending: true },
      { file: 'd.yaml', id: 'd', result: 'unchanged', pending: false },
      { file: 'e.yaml', id: 'e', result: undefined, pending: true },
      { file: 'f.yaml', id: 'f', result: 'rejected', error: 'bad tile', pending: false },
    ]);
    expect(settled.files[0]?.change).toBe(plan.changes[0]);
    // No `error` member at all without an error (the status JSON would otherwise carry `error: undefined`).
    expect(Object.keys(settled.files[0] ?? {})).not.toContain('error');
  });

  it('remembers a file as synced at its hash once live is known equal to it: written, or unchanged; not failed, drifted, rejected or unwritten', () => {
    const plan = planOf([create('a'), unchanged('b'), update('c'), update('d'), update('e'), update('f'), update('nohash')]);
    const hashes = new Map([['a', 'ha'], ['b', 'hb'], ['c', 'hc'], ['d', 'hd'], ['e', 'he'], ['f', 'hf']]);
    const outcomes = [applied(create('a')), failed(update('c')), applied(update('f')), applied(update('nohash'))];
    const settled = settleFiles(plan, { outcomes, rejected: new Map([['e', 'bad']]), drifted: new Set(['d']), hashes }, false);
    expect(Object.fromEntries(settled.synced)).toEqual({ a: 'ha', b: 'hb', f: 'hf' });
    const memory = memoryOf({ keep: 'hk', d: 'hd', a: 'old' }, ['o'], 'why');
    const { leftBehind } = memory;
    recordSynced(memory, settled.synced);
    expect(Object.fromEntries(memory.synced)).toEqual({ keep: 'hk', d: 'hd', a: 'ha', b: 'hb', f: 'hf' });
    expect(memory.leftBehind).toBe(leftBehind);
    expect(memory.lastRefusal).toBe('why');
  });

  it('a file whose write failed keeps the hash it was synced at before', () => {
    const plan = planOf([update('a')]);
    const settled = settleFiles(plan, { outcomes: [failed(update('a'))], rejected: new Map(), drifted: new Set(), hashes: new Map([['a', 'new']]) }, true);
    expect(settled.synced.size).toBe(0);
    const memory = memoryOf({ a: 'old' });
    recordSynced(memory, settled.synced);
    expect(memory.synced.get('a')).toBe('old');
  });

  it('gives each loop a memory of its own: one loop recording a file does not make it synced in another', () => {
    const one = freshMemory();
    const other = freshMemory();
    recordSynced(one, new Map([['a', 'ha']]));
    expect(one.synced.get('a')).toBe('ha');
    expect(other.synced.size).toBe(0);
  });
});

describe('drift rules: what a full pass forgets and announces', () => {
  it('forgets the sync state of dashboards no file holds any more, and nothing else', () => {
    const memory = memoryOf({ a: 'ha', b: 'hb', c: 'hc' }, ['o'], 'why');
    const after = forgetMissing(memory, ['a', 'c', 'new']);
    expect(Object.fromEntries(after.synced)).toEqual({ a: 'ha', c: 'hc' });
    expect(after.leftBehind).toBe(memory.leftBehind);
    expect(after.lastRefusal).toBe('why');
    expect(memory.synced.size).toBe(3);
  });

  it('announces a kept orphan once, never a deletion, and again only after it stopped being an orphan', () => {
    const first = settleOrphans([orphan('x'), orphan('y'), deletion('z')], memoryOf({ a: 'ha' }, [], 'why'));
    expect(first.announce.map((o) => o.id)).toEqual(['x', 'y']);
    expect([...first.memory.leftBehind]).toEqual(['x', 'y']);
    expect(first.memory.lastRefusal).toBe('why');
    expect(first.memory.synced.get('a')).toBe('ha');
    const second = settleOrphans([orphan('x'), orphan('y')], first.memory);
    expect(second.announce).toEqual([]);
    const gone = settleOrphans([orphan('y')], second.memory);
    expect([...gone.memory.leftBehind]).toEqual(['y']);
    expect(settleOrphans([orphan('x'), orphan('y')], gone.memory).announce.map((o) => o.id)).toEqual(['x']);
  });

  it('keeps an announced orphan announced while it is listed as a deletion, and announces one listed twice once', () => {
    const announced = settleOrphans([orphan('x')], freshMemory()).memory;
    const pruning = settleOrphans([deletion('x')], announced);
    expect(pruning.announce).toEqual([]);
    expect([...pruning.memory.leftBehind]).toEqual(['x']);
    expect(settleOrphans([orphan('x')], pruning.memory).announce).toEqual([]);
    expect(settleOrphans([orphan('d'), orphan('d')], freshMemory()).announce).toHaveLength(1);
  });
});
