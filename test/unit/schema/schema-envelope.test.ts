import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { constraintsMessage, ConstraintViolation, ErrorEnvelope, formatIssuePath, MAX_VIOLATIONS, ParameterLocation, violationsFromIssues } from '../../../src/schema/error-envelope.js';
import { HttpError } from '../../../src/server/http/http-error.js';
import { TagInfo } from '../../../src/schema/events.js';
import { DashboardId, DEFAULT_ENVIRONMENT, EnvironmentId } from '../../../src/schema/ids.js';
import { DASHBOARD_FILE_SCHEMA_ID, dashboardFileJsonSchema } from '../../../src/schema/json-schema.js';
import { Scope, SCOPE_DESCRIPTIONS } from '../../../src/schema/scopes.js';
import { CORPUS_DIR } from '../../helpers/corpus.js';

const ERRORS_DIR = join(CORPUS_DIR, 'errors');
const errorFiles = readdirSync(ERRORS_DIR).filter((name) => name.endsWith('.json'));
const readError = (name: string): unknown => JSON.parse(readFileSync(join(ERRORS_DIR, name), 'utf8'));

describe('the error envelope', () => {
  it.each(errorFiles.filter((name) => !name.endsWith('.inner-error.json')))('reads the real error body %s', (name) => {
    expect(ErrorEnvelope.safeParse(readError(name)).success).toBe(true);
  });

  it.each(errorFiles.filter((name) => name.endsWith('.inner-error.json')))('reads the real error %s (printed without its envelope)', (name) => {
    expect(ErrorEnvelope.safeParse({ error: readError(name) }).success).toBe(true);
  });

  it('takes violations with null or empty locations and with locations the reference does not list', () => {
    const envelope = ErrorEnvelope.parse(readError('keptn-dtsvc__dashboards-basic-no_metric_errors-dashboard_invalid_uuid_400.json'));
    expect(envelope.error.constraintViolations).toEqual([{ path: 'id', message: 'Not a valid UUID.', parameterLocation: 'PATH', location: null }]);
    expect(ConstraintViolation.safeParse({ path: null, message: null, parameterLocation: 'COOKIE', location: '' }).success).toBe(true);
  });

  it('refuses a body without code or message', () => {
    expect(ErrorEnvelope.safeParse({ error: { message: 'Constraints violated.' } }).success).toBe(false);
    expect(ErrorEnvelope.safeParse({ error: { code: 400 } }).success).toBe(false);
    expect(ErrorEnvelope.safeParse({ code: 400, message: 'Constraints violated.' }).success).toBe(false);
  });

  it('knows the parameter locations of the published schema (HEADER since 2023)', () => {
    expect(ParameterLocation.options).toEqual(['PATH', 'PAYLOAD_BODY', 'QUERY', 'HEADER']);
  });
});

describe('violation paths', () => {
  it('are dotted with [index], as the real service writes them', () => {
    expect(formatIssuePath(['tiles', 13, 'assignedEntities'])).toBe('tiles[13].assignedEntities');
    expect(formatIssuePath(['dashboardMetadata', 'owner'])).toBe('dashboardMetadata.owner');
    expect(formatIssuePath(['tiles', 2, 'queries', 0, 'filterBy'])).toBe('tiles[2].queries[0].filterBy');
    expect(formatIssuePath([0, 'id'])).toBe('[0].id');
    expect(formatIssuePath([])).toBe('');
  });

  it('become one violation per issue, in the body unless said otherwise, with a null location', () => {
    const issues = z.object({ dashboardMetadata: z.object({ owner: z.string() }), tiles: z.array(z.object({ assignedEntities: z.array(z.string()) })) })
      .safeParse({ dashboardMetadata: {}, tiles: [{}] }).error?.issues ?? [];
    expect(violationsFromIssues(issues)).toEqual([
      { path: 'dashboardMetadata.owner', message: 'Invalid input: expected string, received undefined', parameterLocation: 'PAYLOAD_BODY', location: null },
      { path: 'tiles[0].assignedEntities', message: 'Invalid input: expected array, received undefined', parameterLocation: 'PAYLOAD_BODY', location: null },
    ]);
    const idIssues = DashboardId.safeParse('not-a-uuid').error?.issues ?? [];
    expect(violationsFromIssues(idIssues, 'PATH', ['id'])).toEqual([{ path: 'id', message: 'Not a valid UUID.', parameterLocation: 'PATH', location: null }]);
  });
});

describe('ids', () => {
  it('take dashboard ids of the UUID shape without insisting on a version, lowercased', () => {
    expect(DashboardId.parse('e03f4be0-4712-4f12-96ee-8c486d001e9c')).toBe('e03f4be0-4712-4f12-96ee-8c486d001e9c');
    expect(DashboardId.parse('12345678-1111-4444-8888-123456789012')).toBe('12345678-1111-4444-8888-123456789012');
    expect(DashboardId.parse('E03F4BE0-4712-4F12-96EE-8C486D001E9C')).toBe('e03f4be0-4712-4f12-96ee-8c486d001e9c');
  });

  it('refuse other dashboard ids with the real service message', () => {
    for (const id of ['e03f4be0471240f1296ee8c486d001e9c', 'e03f4be0-4712-4f12-96ee-8c486d001e9', 'x03f4be0-4712-4f12-96ee-8c486d001e9c', ' e03f4be0-4712-4f12-96ee-8c486d001e9c']) {
      expect(DashboardId.safeParse(id).error?.issues.map((issue) => issue.message)).toEqual(['Not a valid UUID.']);
    }
  });

  it('take environment ids that are safe as a folder name, and default to `local`', () => {
    for (const id of ['local', 'prod', 'eu-1', '0', 'a'.repeat(63)]) expect(EnvironmentId.safeParse(id).success).toBe(true);
    for (const id of ['', '-prod', 'Prod', 'a/b', '..', 'a'.repeat(64), 'prod\n']) {
      expect(EnvironmentId.safeParse(id).error?.issues.map((issue) => issue.message)).toEqual(['Not a valid environment id (lowercase letters, digits and dashes).']);
    }
    expect(DEFAULT_ENVIRONMENT).toBe('local');
  });
});

describe('token scopes', () => {
  it('are the four the endpoints need, described as the real 403 messages and the published schema describe them', () => {
    expect(Scope.options).toEqual(['ReadConfig', 'WriteConfig', 'DataExport', 'InstallerDownload']);
    expect(SCOPE_DESCRIPTIONS).toEqual({
      ReadConfig: 'Read configuration',
      WriteConfig: 'Write configuration',
      DataExport: 'Access problem and event feed, metrics, and topology',
      InstallerDownload: 'PaaS integration - Installer download',
    });
  });
});

describe('tag contexts', () => {
  it('are known by the published list, and others still pass', () => {
    const context = TagInfo.shape.context as unknown as { options: [{ options: string[] }, unknown] };
    expect(context.options[0].options).toEqual(['AWS', 'AWS_GENERIC', 'AZURE', 'CLOUD_FOUNDRY', 'CONTEXTLESS', 'ENVIRONMENT', 'GOOGLE_CLOUD', 'KUBERNETES']);
  });
});

describe('the dashboard file JSON Schema', () => {
  const schema = dashboardFileJsonSchema() as Record<string, unknown>;

  it('names itself for editors', () => {
    expect(DASHBOARD_FILE_SCHEMA_ID).toBe('urn:dashcd:schema:dashboard-file');
    expect(schema.$id).toBe('urn:dashcd:schema:dashboard-file');
    expect(schema.title).toBe('dashcd dashboard file');
    expect(schema.description).toBe('One dashboard per file, in the config API Dashboard shape. `id` is optional: without it, dashcd derives one from the file path.');
  });

  it('describes the input side: optional members may be null, as real exports write them', () => {
    const metadata = (schema.properties as Record<string, { properties: Record<string, unknown> }>).dashboardMetadata?.properties;
    expect(metadata?.shared).toEqual({ type: ['boolean', 'null'] });
  });
});

describe('a body with very many problems', () => {
  const issues = (count: number) => z.array(z.string()).safeParse(Array.from({ length: count }, (_, i) => i)).error?.issues ?? [];

  it('lists the first 100 as violations, in order', () => {
    expect(MAX_VIOLATIONS).toBe(100);
    expect(violationsFromIssues(issues(250)).map((v) => v.path)).toEqual(Array.from({ length: 100 }, (_, i) => `[${i}]`));
    expect(violationsFromIssues(issues(3))).toHaveLength(3);
  });

  it('keeps the service’s message up to 100 and says how many beyond', () => {
    expect(constraintsMessage(1)).toBe('Constraints violated.');
    expect(constraintsMessage(100)).toBe('Constraints violated.');
    expect(constraintsMessage(101)).toBe('Constraints violated. (101 violations; the first 100 are listed)');
  });

  it('HttpError.constraints lists at most 100, counting every one in its message', () => {
    const violations = violationsFromIssues(issues(100));
    const error = HttpError.constraints([...violations, { path: 'id', message: 'x' }], 4000);
    expect([error.status, error.message, error.violations?.length]).toEqual([400, 'Constraints violated. (4000 violations; the first 100 are listed)', 100]);
    expect(HttpError.constraints([...violations, { path: 'id', message: 'x' }]).message).toBe('Constraints violated. (101 violations; the first 100 are listed)');
    expect(HttpError.constraints(violations.slice(0, 2)).message).toBe('Constraints violated.');
  });
});
