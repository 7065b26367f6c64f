import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, redactText } from '../../../src/lib/logger.js';

const TOKEN = 'dt0c01.ABCDEFGHIJKLMNOPQRSTUVWX.ABCDEFGHIJKLMNOPQRSTUVWXYZ234567ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function capture(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      text += chunk.toString();
      callback();
    },
  });
  return { stream, text: () => text };
}

describe('logger redaction', () => {
  it('never writes a token, whether in a token field, a header, a URL query or free text', () => {
    const out = capture();
    const log = createLogger({ destination: out.stream });
    log.info({ token: TOKEN, headers: { authorization: `Api-Token ${TOKEN}` } }, 'request');
    log.info({ url: `http://h/api/v1/deployment/installer/agent/unix/default/latest?arch=x86&Api-Token=${TOKEN}` }, 'download');
    log.warn({ nested: { deeper: { note: `failed with ${TOKEN}` } } }, `message mentioning ${TOKEN}`);
    log.info({ url: 'http://h/x?api-token=secret-in-lowercase&flavor=default' }, 'lowercase');
    expect(out.text()).not.toContain(TOKEN);
    expect(out.text()).not.toContain('secret-in-lowercase');
    expect(out.text()).toContain('[REDACTED]');
    expect(out.text()).toContain('flavor=default');
  });

  it('redactText removes platform tokens, OAuth client secrets and access tokens too, in text and in query strings', () => {
    const platform = 'dt0s16.ABCDEFGHIJKLMNOPQRSTUVWX.ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ012345';
    const client = 'dt0s02.ABCDEFGHIJKLMNOPQRSTUVWX.abcdefghijklmnopqrstuvwxyz';
    expect(redactText(`Bearer ${platform} and secret ${client}`)).toBe('Bearer [REDACTED] and secret [REDACTED]');
    expect(redactText('/sso/oauth2/token?grant_type=client_credentials&client_secret=s3cr3t&x=1')).toBe('/sso/oauth2/token?grant_type=client_credentials&client_secret=[REDACTED]&x=1');
    expect(redactText('/documents?access_token=eyJhbGciOi&page=2')).toBe('/documents?access_token=[REDACTED]&page=2');
    expect(redactText('/x?ACCESS%5FTOKEN=abc')).toBe('/x?ACCESS%5FTOKEN=[REDACTED]');
  });

  it('redactText keeps the rest of a URL intact', () => {
    expect(redactText('http://h/p?arch=x86&Api-Token=abc&flavor=default')).toBe('http://h/p?arch=x86&Api-Token=[REDACTED]&flavor=default');
  });

  it.each([
    ['Api%2DToken', 'http://h/p?arch=x86&Api%2DToken=secret&flavor=default', 'http://h/p?arch=x86&Api%2DToken=[REDACTED]&flavor=default'],
    ['api%2dtoken', 'http://h/p?api%2dtoken=secret', 'http://h/p?api%2dtoken=[REDACTED]'],
    ['%41pi-%74oken', 'http://h/p?x=1&%41pi-%74oken=secret', 'http://h/p?x=1&%41pi-%74oken=[REDACTED]'],
    ['every byte escaped', 'http://h/p?%61%70%69%2D%54%6f%4B%65%6E=secret#f', 'http://h/p?%61%70%69%2D%54%6f%4B%65%6E=[REDACTED]#f'],
  ])('redactText redacts a percent-encoded Api-Token parameter name (%s)', (_what, url, expected) => {
    expect(redactText(url)).toBe(expected);
  });

  it('redactText redacts token shapes whose characters are percent-encoded in any hex case', () => {
    const [prefix = '', id = '', secret = ''] = TOKEN.split('.');
    const escape = (text: string, hexCase: (hex: string) => string): string =>
      [...text].map((c) => `%${hexCase(c.charCodeAt(0).toString(16))}`).join('');
    const forms = [
      `${prefix}%2E${id}%2E${secret}`,
      `${prefix}%2e${id}%2e${secret}`,
      `${escape(prefix, (h) => h)}.${id}%2E${escape(secret, (h) => h.toUpperCase())}`,
      escape(TOKEN, (h) => h.toUpperCase()),
      `${prefix}.${id.slice(0, 4)}%41${id.slice(5)}.${secret}`,
    ];
    for (const form of forms) expect(redactText(`got ${form} back`)).toBe('got [REDACTED] back');
  });

  it('redactText leaves ordinary escapes and look-alike names alone', () => {
    const text = 'http://h/p?q=a%20b&api-tokens=1&my%2Dtoken=2';
    expect(redactText(text)).toBe(text);
  });
});
