import type { Environment } from '../environments/environment.js';
import { MetricsRegistry } from '../lib/metrics.js';
import { DaemonStatus } from './daemon-status.js';
import type { StatusView } from './status-endpoints.js';
import type { EnvironmentsStatusJson, HealthJson } from './status-schema.js';

interface Lane {
  environment: Environment;
  /** Where it reconciles into (never a token). */
  target: string;
  status: DaemonStatus;
}

/**
 * The daemon's state with environments: one loop status per environment, all recording into one metrics registry
 * with their `env` label. `/status` lists them in declaration order.
 */
export class EnvironmentsStatus implements StatusView {
  readonly startedAt = new Date().toISOString();
  readonly registry = new MetricsRegistry();
  private readonly lanes: Lane[] = [];
  private running = true;

  /** The status of one environment's loop, registered for `/status` and `/metrics`. */
  add(environment: Environment, target: string): DaemonStatus {
    const status = new DaemonStatus({ registry: this.registry, env: environment.name });
    this.lanes.push({ environment, target, status });
    return status;
  }

  /** False once shutdown started, or when any environment's loop died (its archive unusable). */
  get alive(): boolean {
    return this.running && this.lanes.every((lane) => lane.status.alive);
  }

  /** Shutdown started: every environment's loop stops with it. */
  stop(): void {
    this.running = false;
    for (const lane of this.lanes) lane.status.stop();
  }

  toJSON(): EnvironmentsStatusJson {
    return {
      startedAt: this.startedAt,
      alive: this.alive,
      environments: this.lanes.map(({ environment, target, status }) => ({
        name: environment.name,
        group: environment.group,
        target,
        stale: status.staleReasons(),
        ...status.loopJSON(),
      })),
    };
  }

  /** Stale when any environment is, each reason naming its environment. */
  health(): HealthJson {
    if (!this.alive) return { status: 'unavailable' };
    const stale = this.lanes.flatMap(({ environment, status }) => status.staleReasons().map((reason) => `${environment.name}: ${reason}`));
    return stale.length > 0 ? { status: 'stale', stale } : { status: 'ok' };
  }
}
