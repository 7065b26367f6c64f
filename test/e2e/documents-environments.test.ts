import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentsClient, type DocumentsClient } from '../../src/client/documents-api.js';
import type { EnvironmentId } from '../../src/schema/ids.js';
import { createProject, runDashcd, type CliResult, type Project } from '../helpers/cli.js';
import { startDocumentServer, type DocumentServer } from '../helpers/documents.js';
import { startFaultServer, type FaultServer } from '../helpers/fault-server.js';

/**
 * A platform dashboard and a notebook through three environments of one dashcd.yaml: values and an override per
 * environment, a takeover by adoption, an edit made in the app while apply runs (refused, re-planned, kept), and a
 * prune to each environment's trash, restored from there. Every request goes through a proxy, so the test can make
 * the app's edit land between apply's read and its write.
 */

const ENVIRONMENTS = ['dev', 'staging', 'prod'] as const;
type Env = (typeof ENVIRONMENTS)[number];
const SUBJECT = 'dashcd-ci';

let server: DocumentServer;
let proxy: FaultServer;
let project: Project;
const variables: Record<string, string> = {};
const app = {} as Record<Env, DocumentsClient>;
/** Runs once, on the next document write of this path through the proxy, before the write reaches the server. */
let beforeWrite: { path: RegExp; run: () => Promise<void> } | undefined;

const CHECKOUT = {
  document: { kind: 'dashboard', name: 'Checkout (${{ env.name }})' },
  version: 21,
  tiles: {
    about: { type: 'markdown', content: 'On call: ${{ values.oncall }}. Runbook: /ui/apps/dynatrace.notebooks/notebook/${{ dashboard("triage.yaml") }}' },
    errors: { type: 'data', title: 'Errors', query: 'fetch logs | filter service == "${{ values.service }}"', visualization: 'lineChart' },
  },
  layouts: { about: { x: 0, y: 0, w: 24, h: 2 }, errors: { x: 0, y: 2, w: 12, h: 4 } },
  dashcd: { overrides: { prod: { tiles: { errors: { title: 'Errors in production' } } } } },
};
const TRIAGE = {
  document: { kind: 'notebook', name: 'Triage' },
  version: '7',
  sections: [
    { id: 'intro', type: 'markdown', markdown: '# Triage of ${{ values.service }}' },
    { id: 'logs', type: 'dql', title: 'Logs', state: { input: { value: 'fetch logs | limit 10' } } },
  ],
};

beforeAll(async () => {
  server = await startDocumentServer();
  proxy = await startFaultServer({
    upstream: server.baseUrl,
    handle: async (request, forward) => {
      const hook = beforeWrite;
      if (hook !== undefined && request.method === 'PATCH' && hook.path.test(request.path)) {
        beforeWrite = undefined;
        await hook.run();
      }
      return forward();
    },
  });
  const environments: Record<string, unknown> = {};
  for (const env of ENVIRONMENTS) {
    await server.server.environments.ensure(env as EnvironmentId);
    const token = await server.platformToken({ env: env as EnvironmentId, subject: SUBJECT });
    variables[`${env.toUpperCase()}_TOKEN`] = server.tokenFor(['ReadConfig', 'WriteConfig'], env as EnvironmentId);
    variables[`${env.toUpperCase()}_PLATFORM_TOKEN`] = token;
    app[env] = createDocumentsClient({ platformUrl: server.server.envUrl(env as EnvironmentId), credential: { kind: 'platform-token', token }, retry: { maxAttempts: 1 } });
    const url = `${proxy.url}/e/${env}`;
    environments[env] = {
      target: url,
      tokenEnv: `${env.toUpperCase()}_TOKEN`,
      platformTarget: url,
      platformTokenEnv: `${env.toUpperCase()}_PLATFORM_TOKEN`,
      ...(env === 'prod' ? { values: { oncall: '#checkout-prod', service: 'checkout-prod' } } : {}),
    };
  }
  project = await createProject({
    'dashcd.yaml': stringify({ values: { oncall: '#checkout', service: 'checkout' }, environments }),
    'dashboards/checkout.yaml': stringify(CHECKOUT),
    'dashboards/triage.yaml': stringify(TRIAGE),
  });
});
afterAll(async () => {
  await Promise.all(Object.values(app).map((client) => client.close()));
  await proxy?.close();
  await server?.close();
  await project?.cleanup();
});

const dashcd = (...argv: string[]): Promise<CliResult> => runDashcd(argv, { cwd: project.root, env: variables });

async function content(env: Env, id: string): Promise<Record<string, unknown>> {
  return JSON.parse((await app[env].get(id)).content.toString()) as Record<string, unknown>;
}

async function idsIn(env: Env): Promise<Record<string, string>> {
  const listed = await app[env].list({ addFields: ['description'] });
  return Object.fromEntries(listed.map((d) => [d.name, d.id]));
}

describe('a platform dashboard and a notebook in dev, staging and prod', () => {
  it('applies each environment its own rendering: values, the prod override, references to the notebook', async () => {
    const applied = await dashcd('apply', '--all-envs');
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    for (const env of ENVIRONMENTS) {
      const ids = await idsIn(env);
      const checkout = ids[`Checkout (${env})`] ?? '';
      const triage = ids.Triage ?? '';
      const tiles = (await content(env, checkout)).tiles as Record<string, { title?: string; content?: string; query?: string }>;
      expect(tiles.errors?.title).toBe(env === 'prod' ? 'Errors in production' : 'Errors');
      expect(tiles.errors?.query).toBe(`fetch logs | filter service == "${env === 'prod' ? 'checkout-prod' : 'checkout'}"`);
      expect(tiles.about?.content).toBe(`On call: ${env === 'prod' ? '#checkout-prod' : '#checkout'}. Runbook: /ui/apps/dynatrace.notebooks/notebook/${triage}`);
      expect(((await content(env, triage)).sections as { markdown?: string }[])[0]?.markdown).toBe(`# Triage of ${env === 'prod' ? 'checkout-prod' : 'checkout'}`);
    }
    const plan = await dashcd('plan', '--all-envs', '--detailed-exitcode');
    expect(plan.code, plan.stdout).toBe(0);
  });

  it('takes over a notebook made in the staging app only through adopt, then owns it', async () => {
    await app.staging.create({ id: 'runbook', name: 'Runbook', type: 'notebook', content: { bytes: JSON.stringify({ version: '7', sections: [] }), contentType: 'application/json' } });
    await project.write('dashboards/runbook.yaml', stringify({ document: { kind: 'notebook', name: 'Runbook', id: 'runbook' }, version: '7', sections: [], dashcd: { environments: ['staging'] } }));
    const plan = await dashcd('plan', '--env', 'staging');
    expect(plan.stdout).toContain('! adopt   Runbook  (dashboards/runbook.yaml, notebook) — takes over a notebook made outside dashcd');
    expect((await dashcd('apply', '--env', 'staging')).code).toBe(0);
    expect((await app.staging.metadata('runbook')).description).toBe('[managed-by:dashcd]');
    await expect(app.dev.metadata('runbook')).rejects.toMatchObject({ status: 404 });
  });

  it('refuses to overwrite an edit made in the prod app while apply runs, re-plans it, and applies once it is reviewed', async () => {
    const checkout = (await idsIn('prod'))['Checkout (prod)'] ?? '';
    await project.write('dashboards/checkout.yaml', stringify({ ...CHECKOUT, layouts: { ...CHECKOUT.layouts, errors: { x: 12, y: 2, w: 12, h: 4 } } }));
    beforeWrite = {
      path: new RegExp(`^/e/prod/platform/document/v1/documents/${checkout}$`),
      run: async () => {
        const live = await app.prod.get(checkout);
        const edited = { ...(JSON.parse(live.content.toString()) as Record<string, unknown>), settings: { defaultTimeframe: { from: 'now()-7d', to: 'now()' } } };
        await app.prod.update(checkout, live.metadata.version, { content: { bytes: JSON.stringify(edited), contentType: 'application/json' } });
      },
    };
    const raced = await dashcd('apply', '--env', 'prod');
    expect(raced.code, raced.stdout + raced.stderr).toBe(5);
    expect(raced.stdout).toMatch(new RegExp(`✗ update failed {2}${checkout} {2}dashboards/checkout.yaml: changed on the target since it was planned \\(409\\): not overwritten; planned again: update \\(2 changes\\)`));
    expect(raced.stderr).toContain('1 document was changed on the target while apply ran and not overwritten: review them with dashcd plan, then apply again');
    expect(beforeWrite).toBeUndefined();
    expect((await content('prod', checkout)).settings).toEqual({ defaultTimeframe: { from: 'now()-7d', to: 'now()' } });

    const review = await dashcd('plan', '--env', 'prod');
    expect(review.stdout).toContain('- settings:');
    expect(review.stdout).toContain('~ layouts.errors.x: 0 → 12');
    expect((await dashcd('apply', '--env', 'prod')).code).toBe(0);
    const now = await content('prod', checkout);
    expect(now.settings).toBeUndefined();
    expect((now.layouts as Record<string, { x: number }>).errors?.x).toBe(12);
  });

  it('moves a pruned notebook to each environment’s trash, and restores it from one', async () => {
    const triage = Object.fromEntries(await Promise.all(ENVIRONMENTS.map(async (env) => [env, (await idsIn(env)).Triage ?? ''] as const)));
    await project.remove('dashboards/triage.yaml');
    // The checkout dashboard links to the notebook: that reference goes first.
    await project.write('dashboards/checkout.yaml', stringify({ ...CHECKOUT, tiles: { ...CHECKOUT.tiles, about: { type: 'markdown', content: 'On call: ${{ values.oncall }}' } } }));
    const pruned = await dashcd('apply', '--all-envs', '--prune');
    expect(pruned.code, pruned.stdout + pruned.stderr).toBe(0);
    expect(pruned.stdout.match(/- moved to the trash {2}\S+ {2}Triage/g)).toHaveLength(3);
    for (const env of ENVIRONMENTS) await expect(app[env].metadata(triage[env] ?? '')).rejects.toMatchObject({ status: 404 });

    const listed = await dashcd('trash', 'list', '--env', 'dev');
    expect(listed.stdout).toContain(`${triage.dev}  notebook   Triage`);
    const restored = await dashcd('trash', 'restore', '--env', 'dev', triage.dev ?? '');
    expect(restored.code, restored.stderr).toBe(0);
    // Its file is gone from the folder as dev renders it: restored, it is an orphan there, and the note says so.
    expect(restored.stderr).toContain(`note: ${triage.dev ?? ''} has no valid file in the dashboards folder`);
    expect((await app.dev.metadata(triage.dev ?? '')).name).toBe('Triage');
    // One whose file is there, as staging renders it (deleted in the app, restored): simply back, no note.
    const checkout = (await idsIn('staging'))['Checkout (staging)'] ?? '';
    await app.staging.delete(checkout, (await app.staging.metadata(checkout)).version);
    const back = await dashcd('trash', 'restore', '--env', 'staging', checkout);
    expect(back.code, back.stderr).toBe(0);
    expect(back.stderr).toBe('');
    await expect(app.prod.metadata(triage.prod ?? '')).rejects.toMatchObject({ status: 404 });
  });

  it('a file only the target can refuse (a new document in UUID form) is that environment’s problem at its line, exit 3; the other environments plan', async () => {
    // It crashed every environment's plan ("unexpected error: unreachable", exit 1): the check runs against the target.
    await project.write('dashboards/uuid.yaml', 'document:\n  kind: dashboard\n  name: Made elsewhere\n  id: 137bedd7-f4fc-4c92-b250-e83f1fc0af2e\nversion: 21\ntiles: {}\nlayouts: {}\ndashcd: { environments: [dev] }\n');
    try {
      const plan = await dashcd('plan', '--all-envs');
      expect(plan.code, plan.stdout + plan.stderr).toBe(3);
      expect(plan.stderr).not.toContain('unexpected error');
      expect(plan.stdout).toMatch(/dashboards\/uuid\.yaml:4:7 {2}\[dev\] document\.id: no document has this id, and the service makes UUID ids itself/);
      expect(plan.stdout).toMatch(/^dev +(- +){6} invalid: 1 problem \(listed above\); nothing planned$/m);
      expect(plan.stdout.match(/^No changes: /gm)).toHaveLength(2);
      const json = JSON.parse((await dashcd('plan', '--all-envs', '--output', 'json')).stdout) as { environments: { name: string; error: string | null; diagnostics: { line: number; col: number }[] }[] };
      expect(json.environments.map((e) => [e.name, e.error, e.diagnostics.map((d) => `${d.line}:${d.col}`)])).toEqual([
        ['dev', 'invalid: 1 problem; nothing planned', ['4:7']],
        ['staging', null, []],
        ['prod', null, []],
      ]);
      const apply = await dashcd('apply', '--env', 'dev');
      expect(apply.code, apply.stdout + apply.stderr).toBe(3);
    } finally {
      await project.remove('dashboards/uuid.yaml');
    }
  });
});
