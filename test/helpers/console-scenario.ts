import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Project } from './cli.js';
import { createToken, dashboardYaml, waitFor, type DaemonChild } from './daemon.js';
import type { DaemonScope } from './daemon-scope.js';
import { api } from './server.js';

export interface ConsoleScenario {
  project: Project;
  d: DaemonChild;
  /** A ReadConfig,WriteConfig token of the embedded store. */
  token: string;
}

/** What each sample dashboard's console status must be. */
export const EXPECTED_STATUS = { 'Web v1': 'synced', 'DB v1': 'drifted', 'Gone v1': 'orphan', 'dashboards/bad.yaml': 'invalid' } as const;

/** What each environment card of the scenario counts: the statuses above, one dashboard each. */
export const EXPECTED_COUNTS = { synced: '1', drifted: '1', invalid: '1', orphan: '1' } as const;

/**
 * A daemon (no self-heal, events simulated and archived) over sample dashboards in every sync state: Web synced, DB
 * edited live (drifted), Gone's file deleted after it was applied (orphan), bad.yaml invalid; and events archived.
 * The folder is a git work tree whose last two edits are not committed, so its revision says "uncommitted changes".
 */
export async function consoleScenario(scope: DaemonScope): Promise<ConsoleScenario> {
  const project = await scope.createProject(
    {
      'dashboards/web.yaml': dashboardYaml('Web'),
      'dashboards/db.yaml': dashboardYaml('DB'),
      'dashboards/gone.yaml': dashboardYaml('Gone'),
    },
    { git: true },
  );
  const d = await scope.startDaemon(['--resync', '1s', '--poll', '200ms', '--no-self-heal', '--simulate-events'], { cwd: project.root });
  const token = await createToken(project.root, '.dashcd', 'ReadConfig,WriteConfig');
  const id = (await d.status()).files['dashboards/db.yaml']?.id ?? '';
  const url = `${d.url}/e/local/api/config/v1/dashboards/${id}`;
  const current = (await api(url, { token })).json as { dashboardMetadata: Record<string, unknown> };
  await api(url, { method: 'PUT', token, body: { ...current, dashboardMetadata: { ...current.dashboardMetadata, name: 'Edited by hand' } } });
  await rm(join(project.root, 'dashboards/gone.yaml'));
  // With an invalid file a pass cannot tell orphans apart: the daemon keeps the list of the last pass without one.
  await waitFor(async () => (await d.status()).orphans.length === 1, { what: 'Gone to be listed as an orphan' });
  await project.write('dashboards/bad.yaml', 'dashboardMetadata:\n  name: Bad\n  owner: team@example.com\ntiles: 7\n');
  await waitFor(async () => {
    const s = await d.status();
    return s.orphans.length === 1 && s.invalid.length === 1 && s.poller.eventsArchived > 0;
  }, { what: 'an orphan, an invalid file and archived events in /status' });
  return { project, d, token };
}
