import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ApiError, TransportError, UnexpectedResponseError } from '../../../src/client/errors.js';
import { PlatformAuthError } from '../../../src/client/platform-auth.js';
import { expectedErrorsAsMessages } from '../../../src/client/expected-errors.js';
import { createLogger } from '../../../src/lib/logger.js';

/** The `err` each line logged through the daemon's logger (and a child of it, as the loops log) carries. */
function loggedErr(error: unknown): unknown {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const log = expectedErrorsAsMessages(createLogger({ destination }));
  log.child({ env: 'prod', component: 'poller' }).warn({ err: error, failures: 1 }, 'events pull failed; retrying');
  const [line] = lines.map((text) => JSON.parse(text) as { err?: unknown; env?: string; failures?: number });
  expect(line).toMatchObject({ env: 'prod', failures: 1 });
  return line?.err;
}

const site = { method: 'GET' as const, url: 'https://abc123.live.dynatrace.com/api/v1/events' };

describe("the daemon's log of an error", () => {
  it('is the message alone for the client’s own errors: a target unreachable, a token rejected, an answer not the API, an OAuth token refused', () => {
    const unreachable = new TransportError("could not reach https://abc123.live.dynatrace.com: ENOTFOUND — check the host name in prod's target in dashcd.yaml", {
      ...site,
      reason: 'ENOTFOUND',
      attempts: 1,
      cause: new Error('getaddrinfo ENOTFOUND abc123.live.dynatrace.com'),
    });
    const rejected = new ApiError('401 from https://abc123.live.dynatrace.com: token rejected — check PROD_TOKEN', { ...site, status: 401, attempts: 1 });
    const notTheApi = new UnexpectedResponseError('200 from GET …: not JSON', { ...site, status: 200, problems: ['not JSON'] });
    const oauth = new PlatformAuthError('the OAuth token endpoint https://sso.example.com/token answered 401');
    for (const error of [unreachable, rejected, notTheApi, oauth]) expect(loggedErr(error)).toBe(error.message);
  });

  it('keeps the type and stack of anything else: that is a bug, and the stack finds it', () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'id')");
    expect(loggedErr(bug)).toMatchObject({ type: 'TypeError', message: bug.message, stack: expect.stringContaining('expected-errors.test.ts') });
  });
});
