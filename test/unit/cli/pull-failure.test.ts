import { describe, expect, it } from 'vitest';
import { ApiError, TransportError, UnexpectedResponseError } from '../../../src/client/errors.js';
import { CliError, ExitCode } from '../../../src/cli/exit-codes.js';
import { pullFailure } from '../../../src/cli/pull-failure.js';

const site = { method: 'GET' as const, url: 'http://t/api/v2/events' };
const running = new AbortController().signal;
const message = (error: unknown): string => {
  const mapped = pullFailure(error, running, '/a');
  expect(mapped).toBeInstanceOf(CliError);
  expect((mapped as CliError).exitCode).toBe(ExitCode.TargetUnavailable);
  return (mapped as CliError).message;
};
const api = (status: number): ApiError => new ApiError(`${status} from GET ${site.url}`, { ...site, status, attempts: 1 });

describe('why an events pull stopped', () => {
  it('says a rerun resumes after what may pass by itself: unreachable, 5xx, 429, 408', () => {
    const transient = [new TransportError('connection refused', { ...site, reason: 'ECONNREFUSED', attempts: 3, cause: undefined }), api(503), api(500), api(429), api(408)];
    for (const error of transient) expect(message(error)).toBe(`${error.message} — the checkpoint is saved: run the same command again to resume`);
  });

  it('says the same command resumes once mended after what a rerun meets again: a refused token, a wrong URL, a body that is no page', () => {
    const lasting = [api(401), api(403), api(404), api(400), new UnexpectedResponseError('unexpected 200 body', { ...site, status: 200, problems: ['x'] })];
    for (const error of lasting) expect(message(error)).toBe(`${error.message} — the checkpoint is saved: once this is fixed, the same command resumes`);
  });
});
