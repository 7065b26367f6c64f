import { describe, expect, it } from 'vitest';
import { AUTH_MESSAGES, authenticate, missingScopeMessage } from '../../../../src/server/http/authenticate.js';
import { HttpError } from '../../../../src/server/http/http-error.js';
import type { Scope } from '../../../../src/schema/scopes.js';

/** A store that knows `reader` (ReadConfig) and `writer` (WriteConfig, ReadConfig), and records what it was asked. */
function store(): { verify(token: string): { scopes: Scope[] } | undefined; asked: string[] } {
  const known: Record<string, Scope[]> = { reader: ['ReadConfig'], writer: ['WriteConfig', 'ReadConfig'], 'a b': ['ReadConfig'] };
  const asked: string[] = [];
  return {
    asked,
    verify(token) {
      asked.push(token);
      const scopes = Object.hasOwn(known, token) ? known[token] : undefined;
      return scopes && { scopes };
    },
  };
}

const CHALLENGE = { 'www-authenticate': 'Api-Token realm="dashcd"' };

/** The HttpError `authenticate` throws (status, message, headers), or 'ok' when it lets the request through. */
function outcome(authorization: string | undefined, opts: { query?: string; tokenInQuery?: boolean; scope?: Scope } = {}): unknown {
  const tokens = store();
  try {
    authenticate(authorization === undefined ? {} : { authorization }, { query: new URLSearchParams(opts.query ?? '') }, opts.tokenInQuery ?? false, opts.scope ?? 'ReadConfig', tokens);
    return { ok: tokens.asked };
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    return { status: error.status, message: error.message, headers: error.headers, asked: tokens.asked };
  }
}

describe('authenticate: the API token check every route makes', () => {
  it('lets a known token with the scope through, from the common header shape', () => {
    expect(outcome('Api-Token reader')).toEqual({ ok: ['reader'] });
    expect(outcome('Api-Token writer', { scope: 'WriteConfig' })).toEqual({ ok: ['writer'] });
  });

  it('reads the other spellings the service accepts: any casing, tabs and several blanks, trailing blanks', () => {
    for (const header of ['api-token reader', 'API-TOKEN\treader', 'Api-Token  reader', 'Api-Token reader \t', 'Api-Token \treader'])
      expect(outcome(header), JSON.stringify(header)).toEqual({ ok: ['reader'] });
  });

  it('answers an unknown token 401 with the challenge, a known one without the scope 403 naming the scope', () => {
    expect(outcome('Api-Token nobody')).toEqual({ status: 401, message: 'Token Authentication failed', headers: CHALLENGE, asked: ['nobody'] });
    expect(outcome('Api-Token reader', { scope: 'WriteConfig' })).toEqual({
      status: 403,
      message: 'Token is missing required scope. Use one of: WriteConfig (Write configuration)',
      headers: {},
      asked: ['reader'],
    });
    expect(missingScopeMessage('DataExport')).toBe('Token is missing required scope. Use one of: DataExport (Access problem and event feed, metrics, and topology)');
  });

  it('refuses another scheme or a malformed header 401 before asking the store', () => {
    const wrongScheme = { status: 401, message: AUTH_MESSAGES.wrongScheme, headers: CHALLENGE, asked: [] };
    for (const header of ['Bearer reader', 'Bearer readerreader', 'Api-Token ', 'Api-Token', 'Api-Token a b', 'Api-Token reader x', 'xApi-Token reader', 'Api-Tokenreader', 'Api-Token reader\u00a0', 'Api-Token\u00a0reader'])
      expect(outcome(header), JSON.stringify(header)).toEqual(wrongScheme);
  });

  it('takes visible characters beyond ASCII letters as part of the token, whichever way the header is read', () => {
    expect(outcome('Api-Token r!~\x7f')).toMatchObject({ status: 401, asked: ['r!~\x7f'] });
    expect(outcome('Api-Token ré')).toMatchObject({ status: 401, asked: ['ré'] });
  });

  it('answers a missing or empty header 401 "missing", with the challenge', () => {
    const missing = { status: 401, message: 'Missing authorization parameter.', headers: CHALLENGE, asked: [] };
    expect(outcome(undefined)).toEqual(missing);
    expect(outcome('')).toEqual(missing);
  });

  it('takes the token from the query (either casing) only where the route allows it, and the header first', () => {
    expect(outcome(undefined, { query: 'Api-Token=reader', tokenInQuery: true })).toEqual({ ok: ['reader'] });
    expect(outcome(undefined, { query: 'api-token=reader', tokenInQuery: true })).toEqual({ ok: ['reader'] });
    expect(outcome('', { query: 'Api-Token=reader', tokenInQuery: true })).toEqual({ ok: ['reader'] });
    expect(outcome(undefined, { query: 'Api-Token=reader&api-token=nobody', tokenInQuery: true })).toEqual({ ok: ['reader'] });
    expect(outcome(undefined, { query: 'Api-Token=&api-token=reader', tokenInQuery: true })).toMatchObject({ status: 401, message: AUTH_MESSAGES.missing });
    expect(outcome(undefined, { query: 'Api-Token=reader', tokenInQuery: false })).toMatchObject({ status: 401, message: AUTH_MESSAGES.missing, asked: [] });
    expect(outcome('Api-Token nobody', { query: 'Api-Token=reader', tokenInQuery: true })).toMatchObject({ status: 401, message: AUTH_MESSAGES.rejected });
  });
});
