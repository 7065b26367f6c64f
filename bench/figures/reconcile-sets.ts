import { writePlatformDashboardSet } from '../data/dashboard-files.js';
import type { FigureContext } from '../lib/figure.js';
import { platformToken } from '../lib/platform-token.js';
import type { ServerUnderTest } from '../lib/servers.js';
import { dashboardSet } from './dashboard-set.js';
import { targetArgs, type Target } from './reconcile-runs.js';

/** A baseline task of bench/children/baseline-task and what the table calls it. */
interface BaselineTask {
  task: string;
  label: string;
}

/**
 * What the validate, plan and apply figures run over: a set of files of one kind, how dashcd and the baselines
 * reach a server holding them, and the naive baselines of plan and apply for that kind.
 */
export interface ReconcileSet {
  /** The rows' name for the files: `YAML dashboards`. */
  noun: string;
  /** The modules (beside the command's own) the figures measure, relative to `src/`. */
  modules: readonly string[];
  files(ctx: FigureContext, count: number): Promise<string>;
  target(server: ServerUnderTest): Promise<Target>;
  plan: BaselineTask;
  apply: BaselineTask;
}

export const classicDashboards: ReconcileSet = {
  noun: 'YAML dashboards',
  modules: ['client/api-client.js'],
  files: dashboardSet,
  target: (server) => Promise.resolve({ ...targetArgs(server), endpoint: server.endpoint }),
  plan: { task: 'naive-plan', label: 'naive: per file parseDocument, sequential GET, diff (own process)' },
  apply: { task: 'sequential-put', label: 'parse each file, PUT one at a time (own process)' },
};

/** The seed's first `count` platform dashboards as pulled files, written once per bench run. */
function platformDashboardFiles(ctx: FigureContext, count: number): Promise<string> {
  return ctx.shared(`platform-dashboards-${count}`, async (dir) => {
    ctx.progress(`writing ${count} platform dashboard files`);
    await writePlatformDashboardSet(dir, { seed: ctx.seed, count });
    return dir;
  });
}

/** The embedded Document service of the same server: its platform URL is the environment's root. */
async function platformTarget(server: ServerUnderTest): Promise<Target> {
  const token = await platformToken(server);
  const classic = targetArgs(server);
  return { args: classic.args, env: { ...classic.env, DT_PLATFORM_URL: server.endpoint.baseUrl, DT_PLATFORM_TOKEN: token }, endpoint: { baseUrl: server.endpoint.baseUrl, token } };
}

export const platformDashboards: ReconcileSet = {
  noun: 'platform dashboards',
  modules: ['kinds/platform-documents.js', 'client/documents-api.js'],
  files: platformDashboardFiles,
  target: platformTarget,
  plan: { task: 'naive-document-plan', label: 'naive: per file parseDocument, sequential GET with the documents client, JSON compare (own process)' },
  apply: { task: 'sequential-document-create', label: 'parse each file, create its document (POST) one at a time with the documents client (own process)' },
};
