import { describe, expect, it } from 'vitest';
import { boundedStatus, MAX_LISTED_FILES } from '../../../src/daemon/status-bound.js';
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
});
