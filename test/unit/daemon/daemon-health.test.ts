import { describe, expect, it } from 'vitest';
import { DaemonStatus } from '../../../src/daemon/daemon-status.js';
import { EnvironmentsStatus } from '../../../src/daemon/environments-status.js';
import type { Environment } from '../../../src/environments/environment.js';

const UNREACHABLE = "could not reach https://abc123.live.dynatrace.com: ENOTFOUND — check the host name in prod's target in dashcd.yaml";

function environment(name: string): Environment {
  return { name, target: { kind: 'embedded' }, group: null, values: {} };
}

describe('/healthz of a loop whose passes fail', () => {
  it('is stale (still not unavailable) from a failed pass until one succeeds, saying why', () => {
    const status = new DaemonStatus();
    status.passEnded({ full: true, durationMs: 5, ok: true });
    expect(status.health()).toEqual({ status: 'ok' });
    status.passEnded({ full: true, durationMs: 5, ok: false, error: UNREACHABLE });
    expect(status.health()).toEqual({ status: 'stale', stale: [`last pass failed: ${UNREACHABLE}`] });
    status.passEnded({ full: false, durationMs: 5, ok: true });
    expect(status.health()).toEqual({ status: 'ok' });
  });

  it('names the environment that fails, and lists it in that environment’s `stale` of /status only', () => {
    const view = new EnvironmentsStatus();
    const dev = view.add(environment('dev'), 'http://127.0.0.1:8080/e/dev');
    const prod = view.add(environment('prod'), 'https://abc123.live.dynatrace.com');
    dev.passEnded({ full: true, durationMs: 5, ok: true });
    prod.passEnded({ full: true, durationMs: 5, ok: false, error: UNREACHABLE });
    prod.passEnded({ full: true, durationMs: 5, ok: false, error: UNREACHABLE });
    expect(view.health()).toEqual({ status: 'stale', stale: [`prod: last pass failed: ${UNREACHABLE}`] });
    expect(view.toJSON().environments.map((e) => [e.name, e.stale])).toEqual([['dev', []], ['prod', [`last pass failed: ${UNREACHABLE}`]]]);
    view.stop();
    expect(view.health()).toEqual({ status: 'unavailable' });
  });
});
