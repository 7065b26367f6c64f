import { describe, expect, it } from 'vitest';
import { ApiError, TransportError, UnexpectedResponseError, isAuthError, isClientError, isOwnerRefusal, isUnreachable } from '../../../src/client/errors.js';
import { apiErrorFrom, requiredScope, transportErrorFrom, transportReason, type FailureContext } from '../../../src/client/messages.js';
import { createRedactor, displayUrl } from '../../../src/client/redact.js';

const redact = createRedactor('s3cr3t-token-value');
const ctx: FailureContext = {
  method: 'PUT',
  url: 'http://127.0.0.1:8080/e/local/api/config/v1/dashboards/abc',
  baseUrl: 'http://127.0.0.1:8080/e/local',
  attempts: 1,
  redact,
};

describe('createRedactor', () => {
  it('removes the literal token and token-shaped values', () => {
    expect(redact('a s3cr3t-token-value b')).toBe('a [REDACTED] b');
    expect(redact('x dt0c01.ABCDEF.GHIJKL y')).toBe('x [REDACTED] y');
    expect(redact('/path?Api-Token=abc&x=1')).toBe('/path?Api-Token=[REDACTED]&x=1');
  });

  it('does not replace a very short token literally, which would mangle words', () => {
    expect(createRedactor('a')('a cat')).toBe('a cat');
  });
});

describe('displayUrl', () => {
  it('hides userinfo and drops a trailing slash', () => {
    expect(displayUrl(new URL('https://user:pw@abc.live.dynatrace.com/'), redact)).toBe('https://REDACTED@abc.live.dynatrace.com');
  });
});

describe('apiErrorFrom', () => {
  it('summarises at most three violations of a 400', () => {
    const violations = [1, 2, 3, 4].map((i) => ({ path: `tiles[${i}].name`, message: 'must not be null', parameterLocation: 'PAYLOAD_BODY', location: null }));
    const error = apiErrorFrom(400, JSON.stringify({ error: { code: 400, message: 'Constraints violated.', constraintViolations: violations } }), ctx);
    expect(error.message).toBe(
      `400 from PUT ${ctx.url}: Constraints violated. tiles[1].name: must not be null; tiles[2].name: must not be null; tiles[3].name: must not be null (+1 more)`,
    );
    expect(error.envelope?.error.constraintViolations).toHaveLength(4);
  });

  it('says how many attempts a 5xx took', () => {
    const error = apiErrorFrom(503, '', { ...ctx, attempts: 4 });
    expect(error.message).toBe(`503 from PUT ${ctx.url}: service unavailable (gave up after 4 attempts) — the target is failing; retry later`);
  });

  it('keeps an unparseable body out of the envelope', () => {
    expect(apiErrorFrom(500, '{"error": 5}', ctx).envelope).toBeUndefined();
  });
});

describe('requiredScope', () => {
  it('maps endpoint families to the scope the service asks for', () => {
    expect(requiredScope('GET', 'http://h/api/config/v1/dashboards')).toBe('ReadConfig');
    expect(requiredScope('POST', 'http://h/api/config/v1/dashboards/validator')).toBe('WriteConfig');
    expect(requiredScope('GET', 'http://h/e/x/api/v1/events?from=1')).toBe('DataExport');
    expect(requiredScope('GET', 'http://h/other')).toBeUndefined();
  });
});

describe('transportReason', () => {
  it('finds the code on the error, inside an AggregateError, or on its cause', () => {
    expect(transportReason(Object.assign(new Error('x'), { code: 'ECONNRESET' }))).toBe('ECONNRESET');
    const refused = Object.assign(new Error('connect'), { code: 'ECONNREFUSED' });
    expect(transportReason(new AggregateError([refused], 'all failed'))).toBe('ECONNREFUSED');
    expect(transportReason(new Error('outer', { cause: refused }))).toBe('ECONNREFUSED');
    expect(transportReason('weird')).toBe('UNKNOWN');
  });
});

describe('error predicates', () => {
  it('tell auth failures, unreachable targets and other failures apart', () => {
    const forbidden = apiErrorFrom(403, '', ctx);
    const notFound = apiErrorFrom(404, '', ctx);
    const refused = transportErrorFrom('ECONNREFUSED', new Error('x'), ctx);
    const odd = new UnexpectedResponseError('odd', { method: 'GET', url: ctx.url, status: 200, problems: [] });
    expect([forbidden, notFound, refused, odd].map(isAuthError)).toEqual([true, false, false, false]);
    expect([forbidden, notFound, refused, odd].map(isUnreachable)).toEqual([false, false, true, false]);
    expect([forbidden, refused, odd, new Error('x')].map(isClientError)).toEqual([true, true, true, false]);
    expect(forbidden).toBeInstanceOf(ApiError);
    expect(refused).toBeInstanceOf(TransportError);
    expect(refused.cause).toBeInstanceOf(Error);
    // What a log line or an uncaught stack names.
    expect([forbidden, refused, odd].map((e) => e.name)).toEqual(['ApiError', 'TransportError', 'UnexpectedResponseError']);
  });

  it("tell a document owner's refusal (that document alone) from a token's (every call alike)", () => {
    const envelope = (code: number, message: string): string => JSON.stringify({ error: { code, message } });
    const owner = apiErrorFrom(403, envelope(403, 'Only the owner of document ops (alice) may change or delete it.'), ctx);
    const scope = apiErrorFrom(403, envelope(403, 'Token is missing required scope document:documents:write'), ctx);
    const bare = apiErrorFrom(403, '', ctx);
    const unauthorized = apiErrorFrom(401, envelope(401, 'the owner of this token is unknown'), ctx);
    const notFound = apiErrorFrom(404, envelope(404, 'the owner is gone'), ctx);
    expect([owner, scope, bare, unauthorized, notFound].map(isOwnerRefusal)).toEqual([true, false, false, false, false]);
    expect([owner, scope, bare, unauthorized, notFound].map(isAuthError)).toEqual([false, true, true, true, false]);
    expect(isOwnerRefusal(new Error('owner'))).toBe(false);
  });
});
