import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, redactText } from '../../src/lib/logger.js';

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

  it('redactText keeps the rest of a URL intact', () => {
    expect(redactText('http://h/p?arch=x86&Api-Token=abc&flavor=default')).toBe('http://h/p?arch=x86&Api-Token=[REDACTED]&flavor=default');
  });
});
