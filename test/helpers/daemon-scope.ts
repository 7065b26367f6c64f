import { afterAll, afterEach } from 'vitest';
import { createProject, type Project } from './cli.js';
import { startDaemon, type DaemonChild, type StartDaemonOptions } from './daemon.js';

/** Makes projects and daemons that belong to the running test. */
export interface DaemonScope {
  createProject(...args: Parameters<typeof createProject>): Promise<Project>;
  startDaemon(args: readonly string[], options: StartDaemonOptions): Promise<DaemonChild>;
  /** Kills every daemon started so far: a fixture whose folders a daemon writes to calls it before removing them. */
  stopAll(): Promise<void>;
}

/**
 * Registers its own afterEach, so call it once at the top level of a test file: after each test, every daemon the
 * test started is killed (SIGKILL: a test that wants a graceful stop does it itself) and every project removed.
 */
export function daemonScopePerTest(): DaemonScope {
  return daemonScope(afterEach);
}

/** The same, cleaned up once after the file's last test (several tests reading one slow-to-build scenario). */
export function daemonScopePerFile(): DaemonScope {
  return daemonScope(afterAll);
}

function daemonScope(after: (cleanup: () => Promise<void>) => void): DaemonScope {
  const daemons: DaemonChild[] = [];
  const projects: Project[] = [];
  const stopAll = async (): Promise<void> => {
    for (const daemon of daemons.splice(0)) await daemon.stop('SIGKILL');
  };
  after(async () => {
    await stopAll();
    for (const project of projects.splice(0)) await project.cleanup();
  });
  return {
    stopAll,
    async createProject(...args) {
      const project = await createProject(...args);
      projects.push(project);
      return project;
    },
    async startDaemon(args, options) {
      const daemon = await startDaemon(args, options);
      daemons.push(daemon);
      return daemon;
    },
  };
}
