import { describe, expect, it } from 'vitest';
import { boundedStatus, MAX_LISTED_ERRORS, MAX_LISTED_FILES } from '../../../src/daemon/status-bound.js';
import type { EnvironmentsStatusJson, LoopStatusJson, SingleStatusJson } from '../../../src/daemon/status-schema.js';

function loop(files: number, invalid: number): LoopStatusJson {
  const name = (i: number): string => `dashboards/f${String(i).padStart(5, '0')}.yaml`;
  return {
    git: null,
    lastReconcile: null,
    driftCount: 0,
    drifted: [],
    files: Object.fromEntries(Array.from({ length: files }, (_, i) => [name(i), { result: 'invalid', at: 'now' }])),
    invalid: Array.from({ length: invalid }, (_, i) => ({ file: name(i), errors: ['x'] })),
    orphans: [],
    kinds: { dashboard: { files: 0, drifted: 0, orphans: 0 }, document: { files: 0, drifted: 0, orphans: 0 } },
    poller: { eventsArchived: 0 },
  } as LoopStatusJson;
}

describe('boundedStatus (what /status serves)', () => {
  it('lists every file of a loop within the bound, as it is', () => {
    const single: SingleStatusJson = { startedAt: 's', alive: true, ...loop(MAX_LISTED_FILES, MAX_LISTED_FILES) };
    expect(boundedStatus(single)).toEqual(single);
  });

  it('past it, lists the first files and invalid files by name and counts the rest, loop by loop', () => {
    const single: SingleStatusJson = { startedAt: 's', alive: true, ...loop(MAX_LISTED_FILES + 3, MAX_LISTED_FILES + 1) };
    const served = boundedStatus(single) as SingleStatusJson;
    expect(Object.keys(served.files)).toHaveLength(MAX_LISTED_FILES);
    expect(Object.keys(served.files).at(-1)).toBe(`dashboards/f${String(MAX_LISTED_FILES - 1).padStart(5, '0')}.yaml`);
    expect(served.filesNotListed).toBe(3);
    expect(served.invalid).toHaveLength(MAX_LISTED_FILES);
    expect(served.invalidNotListed).toBe(1);
    expect(served.startedAt).toBe('s');

    const envs: EnvironmentsStatusJson = {
      startedAt: 's',
      alive: true,
      environments: [
        { ...loop(MAX_LISTED_FILES + 1, 0), name: 'dev', group: null, target: 't', stale: [] },
        { ...loop(1, 1), name: 'prod', group: null, target: 't', stale: [] },
      ],
    };
    const [dev, prod] = (boundedStatus(envs) as EnvironmentsStatusJson).environments;
    expect([Object.keys(dev?.files ?? {}).length, dev?.filesNotListed, dev?.invalidNotListed, dev?.name]).toEqual([MAX_LISTED_FILES, 1, undefined, 'dev']);
    expect(prod).toEqual(envs.environments[1]);
  });

  it('lists a file’s first problems and how many more, in files, invalid and a pending commit’s problems', () => {
    const errors = Array.from({ length: MAX_LISTED_ERRORS + 5 }, (_, i) => `dashboards/a.yaml:${i + 1}:1  problem ${i}`);
    const base = loop(1, 1);
    const single = {
      startedAt: 's',
      alive: true,
      ...base,
      files: { 'dashboards/a.yaml': { result: 'invalid', at: 'now', error: errors.join('\n') } },
      invalid: [{ file: 'dashboards/a.yaml', errors }],
      source: { pending: { invalid: Array.from({ length: MAX_LISTED_FILES + 2 }, (_, i) => `p${i}`) } },
    } as unknown as SingleStatusJson;
    const served = boundedStatus(single) as SingleStatusJson;
    const more = '… and 5 more problems (dashcd validate lists them all)';
    expect(served.invalid[0]?.errors).toEqual([...errors.slice(0, MAX_LISTED_ERRORS), more]);
    expect(served.files['dashboards/a.yaml']?.error).toBe([...errors.slice(0, MAX_LISTED_ERRORS), more].join('\n'));
    const pending = (served.source as unknown as { pending: { invalid: string[] } }).pending.invalid;
    expect(pending).toHaveLength(MAX_LISTED_FILES + 1);
    expect(pending.at(-1)).toBe('… and 2 more problems (dashcd validate lists them all)');
    // Within the bound, a file's problems stay as they are.
    const few = { ...single, invalid: [{ file: 'dashboards/a.yaml', errors: errors.slice(0, MAX_LISTED_ERRORS) }] } as SingleStatusJson;
    expect((boundedStatus(few) as SingleStatusJson).invalid[0]?.errors).toEqual(errors.slice(0, MAX_LISTED_ERRORS));
  });
});
