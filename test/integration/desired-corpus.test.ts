import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDashboardSource } from '../../src/desired/check-file.js';
import { toDashboardYaml } from '../../src/desired/dashboard-yaml.js';
import { fastParseYaml } from '../../src/desired/fast-yaml/fast-parse.js';
import { loadDesired, type DesiredResult } from '../../src/desired/load-desired.js';
import type { Diagnostic } from '../../src/desired/diagnostic.js';
import { CORPUS_DASHBOARDS_DIR } from '../helpers/corpus.js';

const CORPUS = CORPUS_DASHBOARDS_DIR;
const REJECTED: Record<string, { path: RegExp; message: RegExp; at: RegExp }> = {
  'mauney-automation__dashboard_template': {
    path: /^tiles\[\d+\]\.tileType$/,
    message: /^unknown value "DATA_EXPLORER_CODE"; `dashcd schema` lists the \d+ allowed values$/,
    at: /^"?DATA_EXPLORER_CODE/,
  },
  'mauney-automation__00000000-dddd-bbbb-aaaa-000000000002': {
    path: /^dashboardMetadata\.dynamicFilters\.genericTagFilters$/,
    message: /^Required$/,
    // The parent: the dynamicFilters mapping, i.e. its first member (YAML) or its opening brace (JSON).
    at: /^("?filters"?:|\{)/,
  },
};

const corpus = readdirSync(CORPUS)
  .filter((f) => f.endsWith('.json'))
  .map((f) => ({ name: f.slice(0, -'.json'.length), text: readFileSync(join(CORPUS, f), 'utf8') }));

/** The corpus shares ids between files (18 carry the same fixture id); identity is tested elsewhere. */
const withoutId = (text: string): Record<string, unknown> => {
  const { id: _id, ...rest } = JSON.parse(text) as Record<string, unknown>;
  return rest;
};

/** What a file body should hold: the original without the server-owned fields. */
function expectedBody(text: string): unknown {
  const { metadata: _m, ...rest } = withoutId(text);
  const meta = rest.dashboardMetadata as Record<string, unknown>;
  const { popularity: _p, ...dashboardMetadata } = meta;
  return { ...rest, dashboardMetadata };
}

function textAt(source: string, d: Diagnostic): string {
  return (source.split('\n')[d.line - 1] ?? '').slice(d.col - 1);
}

let root = '';
let yamlResult: DesiredResult;
let jsonResult: DesiredResult;
const yamlText = new Map<string, string>();

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'dashcd-corpus-'));
  await mkdir(join(root, 'yaml'));
  await mkdir(join(root, 'json'));
  for (const { name, text } of corpus) {
    const yaml = toDashboardYaml(withoutId(text));
    yamlText.set(name, yaml);
    await writeFile(join(root, 'yaml', `${name}.yaml`), yaml);
    await writeFile(join(root, 'json', `${name}.json`), JSON.stringify(expectedBody(text), null, 2));
  }
  yamlResult = await loadDesired({ dir: 'yaml', cwd: root });
  jsonResult = await loadDesired({ dir: 'json', cwd: root });
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('the real-world corpus', () => {
  it('written with toDashboardYaml, loads with equal values and no diagnostics except the two rejected files', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(47);
    expect(yamlResult.dashboards).toHaveLength(corpus.length - 2);
    for (const dashboard of yamlResult.dashboards) {
      const name = dashboard.file.slice('yaml/'.length, -'.yaml'.length);
      const original = corpus.find((c) => c.name === name);
      expect(isDeepStrictEqual(dashboard.body, expectedBody(original?.text ?? '')), name).toBe(true);
    }
    expect(new Set(yamlResult.diagnostics.map((d) => d.file))).toEqual(new Set(Object.keys(REJECTED).map((n) => `yaml/${n}.yaml`)));
  });

  it.each(Object.entries(REJECTED))('rejects %s with the precise violation and its position, in YAML and JSON', (name, rule) => {
    for (const [result, ext] of [[yamlResult, 'yaml'], [jsonResult, 'json']] as const) {
      const found = result.diagnostics.filter((d) => d.file === `${ext}/${name}.${ext}`);
      expect(found, ext).toHaveLength(1);
      const [d] = found as [Diagnostic];
      expect(d.path).toMatch(rule.path);
      expect(d.message).toMatch(rule.message);
      const source = ext === 'yaml' ? (yamlText.get(name) ?? '') : JSON.stringify(expectedBody(corpus.find((c) => c.name === name)?.text ?? ''), null, 2);
      expect(textAt(source, d), `${ext} ${d.line}:${d.col}`).toMatch(rule.at);
    }
  });

  it('warns about no key in any of the accepted files: the known-field lists hold every field real exports carry', () => {
    const accepted = new Set(yamlResult.dashboards.map((d) => d.file));
    expect(accepted.size).toBe(45);
    expect(yamlResult.warnings).toEqual([]);
    expect(jsonResult.warnings).toEqual([]);
  });

  it('loads the JSON files with the same values as their YAML versions', () => {
    expect(jsonResult.dashboards.map((d) => d.body)).toEqual(yamlResult.dashboards.map((d) => d.body));
  });

  it('takes the fast path for every accepted file and agrees with the yaml-only path on all of them', () => {
    for (const [name, yaml] of yamlText) {
      const fast = fastParseYaml(yaml);
      expect(fast.ok, name).toBe(true);
      expect(checkDashboardSource(yaml)).toEqual(checkDashboardSource(yaml, { useFastPath: false }));
    }
  });
});
