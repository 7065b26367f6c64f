import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { startEventsFeedServer, type EventsFeedServer, type EventsFeedServerOptions } from './events-feed-server.js';

/**
 * Registers its own beforeEach/afterEach (call it where the tests that need it are declared): each test gets a fresh
 * temp dir under `os.tmpdir()` named `<prefix>…`, handed to `use` before the test and removed after it.
 */
export function tempDirPerTest(prefix: string, use: (dir: string) => void): void {
  let dir: string | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
    use(dir);
  });
  afterEach(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });
}

/** What one test of the events archiver works in. */
export interface FeedScratch {
  /** This test's own temp dir (fresh per test). */
  readonly dir: string;
  /** Starts a feed server for this test; every one started is stopped after the test. */
  startFeed(options?: EventsFeedServerOptions): Promise<EventsFeedServer>;
}

/**
 * Registers its own beforeEach/afterEach, so call it once at the top level of a test file: each test gets a fresh
 * temp dir under `os.tmpdir()` named `<prefix>…`, removed after the test together with the feed servers it started.
 */
export function feedScratchPerTest(prefix: string): FeedScratch {
  let dir: string | undefined;
  const servers: EventsFeedServer[] = [];
  tempDirPerTest(prefix, (created) => (dir = created));
  // Registered after the dir's: vitest runs after-hooks last-registered first, so the servers stop before it goes.
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.stop();
    dir = undefined;
  });
  return {
    get dir(): string {
      if (dir === undefined) throw new Error('the scratch dir exists only while a test runs');
      return dir;
    },
    async startFeed(options = {}) {
      const server = await startEventsFeedServer(options);
      servers.push(server);
      return server;
    },
  };
}
