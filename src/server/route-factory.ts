import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { DataDirLayout } from './data-dir.js';
import type { EnvironmentRegistry, EnvironmentService } from './environments.js';
import type { Route } from './http/route.js';

/** What an extra route factory (e.g. the events feed) gets to build its routes from. */
export interface ServerContext<E extends EnvironmentService = EnvironmentService> {
  readonly environments: EnvironmentRegistry<E>;
  readonly layout: DataDirLayout;
  readonly clock: Clock;
  readonly log: Logger;
}

export type RouteFactory<E extends EnvironmentService = EnvironmentService> = (context: ServerContext<E>) => Route[];
