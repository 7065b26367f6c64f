import { readdirSync, readFileSync } from 'node:fs';
import { cp, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { basename, join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, runDashcd, type CliResult, type Project } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { CORPUS_DASHBOARDS_DIR } from '../helpers/corpus.js';

const CORPUS = CORPUS_DASHBOARDS_DIR;
/** The two files the corpus README says break a stated rule and must be rejected. */
const REJECTED = {
  template: 'mauney-automation__dashboard_template.json',
  dynamicFilters: 'mauney-automation__00000000-dddd-bbbb-aaaa-000000000002.json',
} as const;
const rejected = new Set<string>(Object.values(REJECTED));

/**
 * A corpus export as a dashboard file: server-owned `id` and `metadata` dropped (several files share one id, so
 * each gets the id derived from its file name instead), everything else as it came.
 */
function asYaml(file: string): string {
  const { id: _id, metadata: _metadata, ...body } = JSON.parse(readFileSync(join(CORPUS, file), 'utf8')) as Record<string, unknown>;
  return stringify(body);
}

const corpusFiles = readdirSync(CORPUS).filter((f) => f.endsWith('.json'));
const accepted = corpusFiles.filter((f) => !rejected.has(f));
const yamlName = (file: string): string => `dashboards/${basename(file, '.json')}.yaml`;

let server: TestServer;
let project: Project;
beforeAll(async () => {
  server = await startTestServer();
  project = await createProject(Object.fromEntries(accepted.map((f) => [yamlName(f), asYaml(f)])));
});
afterAll(async () => {
  await server?.close();
  await project?.cleanup();
});

const dashcd = (...argv: string[]): Promise<CliResult> =>
  runDashcd(argv, { cwd: project.root, env: { DT_ENV_URL: server.url, DT_API_TOKEN: server.token } });

interface PlanJson {
  changes: { action: string; id: string; file: string | null }[];
  summary: Record<string, number>;
}

describe('every accepted corpus dashboard, written as YAML', () => {
  it('is the whole corpus minus the two rejected files', () => {
    expect(accepted.length).toBe(corpusFiles.length - 2);
    expect(accepted.length).toBeGreaterThanOrEqual(45);
  });

  // One sequence on one server: each step builds on the previous one, and the suite stays fast.
  it('validates, applies, then plans clean; pull of each gives a file that plans clean', async () => {
    const validated = await dashcd('validate');
    expect(validated.code, validated.stdout).toBe(0);

    const applied = await dashcd('apply', '--concurrency', '8');
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain(`${accepted.length} created, 0 updated, 0 unchanged, 0 deleted, 0 failed`);

    const planned = await dashcd('plan', '--detailed-exitcode', '--output', 'json');
    const plan = JSON.parse(planned.stdout) as PlanJson;
    expect(plan.changes.filter((c) => c.action !== 'unchanged')).toEqual([]);
    expect(planned.code).toBe(0);

    const ids = plan.changes.map((c) => c.id);
    const pulled = await dashcd('pull', '--dir', 'pulled', ...ids);
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(pulled.stdout.trimEnd().split('\n')).toHaveLength(ids.length);

    const fromPulled = await dashcd('plan', '--dir', 'pulled', '--detailed-exitcode', '--output', 'json');
    const pulledPlan = JSON.parse(fromPulled.stdout) as PlanJson;
    expect(pulledPlan.changes.filter((c) => c.action !== 'unchanged')).toEqual([]);
    expect(pulledPlan.summary).toEqual({ create: 0, adopt: 0, update: 0, delete: 0, unchanged: ids.length, orphan: 0 });
    expect(fromPulled.code).toBe(0);
    expect((await dashcd('validate', '--dir', 'pulled')).code).toBe(0);
  });
});

describe('the sample dashboards shipped in dashboards/', () => {
  it('validate --strict, apply to every sample environment and then plan clean', async () => {
    const samples = await createProject();
    try {
      await cp(fileURLToPath(new URL('../../dashboards', import.meta.url)), join(samples.root, 'dashboards'), { recursive: true });
      // The samples declare environments of the embedded API: each is applied into the project's own store.
      await cp(fileURLToPath(new URL('../../dashcd.yaml', import.meta.url)), join(samples.root, 'dashcd.yaml'));
      const cwd = samples.root;
      const validated = await runDashcd(['validate', '--strict'], { cwd });
      expect(validated.code, validated.stdout + validated.stderr).toBe(0);
      const applied = await runDashcd(['apply', '--all-envs'], { cwd });
      expect(applied.code, applied.stdout).toBe(0);
      expect(applied.stdout).toMatch(/[1-9]\d* created/);
      expect(applied.stdout).toContain('✓ dev: applied\n✓ staging: applied\n✓ prod: applied\n');
      expect((await runDashcd(['plan', '--detailed-exitcode'], { cwd })).code).toBe(0);
    } finally {
      await samples.cleanup();
    }
  });
});

describe('the two corpus files that break a stated rule', () => {
  /** 1-based line and column of the first line matching `pattern` (column of its first non-blank). */
  function locate(text: string, pattern: RegExp): { line: number; col: number } {
    const lines = text.split('\n');
    const index = lines.findIndex((l) => pattern.test(l));
    const line = lines[index] ?? '';
    return { line: index + 1, col: line.length - line.trimStart().length + 1 };
  }

  async function validateOnly(file: string): Promise<{ result: CliResult; text: string }> {
    const text = asYaml(file);
    const single = await createProject({ 'dashboards/d.yaml': text });
    try {
      return { result: await runDashcd(['validate'], { cwd: single.root, env: {} }), text };
    } finally {
      await single.cleanup();
    }
  }

  it('a DATA_EXPLORER_CODE tile is rejected at its tileType', async () => {
    const { result, text } = await validateOnly(REJECTED.template);
    expect(result.code).toBe(3);
    const tiles = (JSON.parse(await readFile(join(CORPUS, REJECTED.template), 'utf8')) as { tiles: { tileType: string }[] }).tiles;
    const index = tiles.findIndex((t) => t.tileType === 'DATA_EXPLORER_CODE');
    const at = locate(text, /tileType: DATA_EXPLORER_CODE/);
    const col = at.col + (/^\s*- /.test(text.split('\n')[at.line - 1] ?? '') ? 2 : 0) + 'tileType: '.length;
    expect(result.stdout.trimEnd().split('\n')).toEqual([expect.stringMatching(new RegExp(`^dashboards/d\\.yaml:${at.line}:${col} {2}tiles\\[${index}\\]\\.tileType: unknown value "DATA_EXPLORER_CODE"`))]);
  });

  it('dynamicFilters without genericTagFilters is rejected at the dynamicFilters map', async () => {
    const { result, text } = await validateOnly(REJECTED.dynamicFilters);
    expect(result.code).toBe(3);
    const parent = locate(text, /^\s*dynamicFilters:\s*$/);
    const firstKey = text.split('\n')[parent.line] ?? '';
    const col = firstKey.length - firstKey.trimStart().length + 1;
    expect(result.stdout.trimEnd().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^dashboards/d\\.yaml:${parent.line + 1}:${col} {2}dashboardMetadata\\.dynamicFilters\\.genericTagFilters: \\S`)),
    ]);
  });
});
