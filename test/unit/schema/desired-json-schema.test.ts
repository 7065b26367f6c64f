import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dashboardFileJsonSchema } from '../../../src/schema/json-schema.js';
import { CORPUS_DASHBOARDS_DIR } from '../../helpers/corpus.js';

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

  it('closes the objects whose fields are fully known, so editors flag tag: or widht:, and leaves tiles open', () => {
    const properties = schema.properties as Record<string, Schema>;
    const metadata = properties.dashboardMetadata as Schema;
    const optional = (member: Schema | undefined): Schema => ((member?.anyOf as Schema[] | undefined)?.[0] ?? member) as Schema;
    const metadataMembers = metadata.properties as Record<string, Schema>;
    const tile = ((properties.tiles as Schema).items as { oneOf: Schema[] }).oneOf.find((t) => JSON.stringify(t).includes('"MARKDOWN"')) as Schema;
    const tileMembers = tile.properties as Record<string, Schema>;
    expect(schema.additionalProperties).toBe(false);
    expect(metadata.additionalProperties).toBe(false);
    expect(Object.keys(metadataMembers)).toEqual(expect.arrayContaining(['tags', 'dashboardFilter', 'sharingDetails', 'popularity']));
    expect(optional(metadataMembers.dashboardFilter).additionalProperties).toBe(false);
    expect(optional(metadataMembers.dynamicFilters).additionalProperties).toBe(false);
    expect(tileMembers.bounds?.additionalProperties).toBe(false);
    expect(optional(tileMembers.tileFilter).additionalProperties).toBe(false);
    expect(tile.additionalProperties).not.toBe(false);
  });
});
