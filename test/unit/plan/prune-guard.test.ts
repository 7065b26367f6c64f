import { describe, expect, it } from 'vitest';
import { pruneRefusal } from '../../../src/plan/prune-guard.js';

describe('pruneRefusal', () => {
  it('lets a run with nothing to delete proceed, even from an empty folder', () => {
    expect(pruneRefusal({ desiredCount: 0, orphanCount: 0, maxDelete: 5, from: 'flag' })).toBeUndefined();
  });

  it('refuses when the folder has no dashboards but managed ones exist, whatever --max-delete says', () => {
    const reason = pruneRefusal({ desiredCount: 0, orphanCount: 2, maxDelete: 100, from: 'flag' });
    expect(reason).toMatch(/no dashboards/);
    expect(reason).toContain('2 managed dashboards');
    expect(pruneRefusal({ desiredCount: 0, orphanCount: 1, maxDelete: 100, from: 'flag' })).toBe('refusing to prune: the dashboards folder has no dashboards, so the one managed dashboard would be deleted');
  });

  it('allows deletions up to and including --max-delete', () => {
    expect(pruneRefusal({ desiredCount: 3, orphanCount: 5, maxDelete: 5, from: 'flag' })).toBeUndefined();
  });

  it('refuses one deletion more than --max-delete and says how to raise it', () => {
    const reason = pruneRefusal({ desiredCount: 3, orphanCount: 6, maxDelete: 5, from: 'flag' });
    expect(reason).toMatch(/refusing to prune 6 dashboards/);
    expect(reason).toContain('--max-delete 5');
  });

  it('with --max-delete 0 refuses any deletion', () => {
    expect(pruneRefusal({ desiredCount: 1, orphanCount: 1, maxDelete: 0, from: 'flag' })).toBe('refusing to prune 1 dashboard: more than --max-delete 0; raise --max-delete to allow it');
  });

  it('names what set the limit, so the refusal says what to raise', () => {
    const refusal = (from: 'file' | 'default' | 'ceiling'): string | undefined => pruneRefusal({ desiredCount: 1, orphanCount: 3, maxDelete: 2, from });
    expect(refusal('file')).toBe('refusing to prune 3 dashboards: more than maxDelete 2 in dashcd.yaml; raise it there, or pass --max-delete, to allow it');
    expect(refusal('default')).toBe('refusing to prune 3 dashboards: more than the default limit of 2; set maxDelete in dashcd.yaml, or pass --max-delete, to allow it');
    expect(refusal('ceiling')).toBe("refusing to prune 3 dashboards: more than the operator's --max-delete 2, the most a commit may delete here");
  });
});
