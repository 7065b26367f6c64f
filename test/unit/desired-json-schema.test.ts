import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dashboardFileJsonSchema } from '../../src/schema/json-schema.js';
import { CORPUS_DASHBOARDS_DIR } from '../helpers/corpus.js';

type Schema = Record<string, unknown>;

const CORPUS = CORPUS_DASHBOARDS_DIR;

describe('dashboardFileJsonSchema', () => {
  const schema = dashboardFileJsonSchema() as Schema;

  it('is a draft-07 schema with an id and a title, for yaml-language-server', () => {
    expect(Object.keys(schema).slice(0, 3)).toEqual(['$schema', '$id', 'title']);
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(schema.type).toBe('object');
  });

  it('requires what the zod schema requires and leaves id optional', () => {
    expect(schema.required).toEqual(['dashboardMetadata', 'tiles']);
    const properties = schema.properties as Record<string, Schema>;
    expect(Object.keys(properties)).toEqual(expect.arrayContaining(['id', 'metadata', 'dashboardMetadata', 'tiles']));
    expect((properties.dashboardMetadata as Schema).required).toEqual(['name', 'owner']);
  });

  it('lists every allowed tileType, so editors complete them and flag DATA_EXPLORER_CODE', () => {
    const text = JSON.stringify(schema);
    for (const tileType of ['DATA_EXPLORER', 'MARKDOWN', 'HEADER', 'SLO', 'OPEN_PROBLEMS']) expect(text).toContain(`"${tileType}"`);
    expect(text).not.toContain('DATA_EXPLORER_CODE');
    expect(readFileSync(resolve(CORPUS, 'mauney-automation__dashboard_template.json'), 'utf8')).toContain('DATA_EXPLORER_CODE');
  });

  it('lets unknown members through, as the loader does', () => {
    expect((schema.properties as Record<string, Schema>).dashboardMetadata?.additionalProperties).not.toBe(false);
  });
});
