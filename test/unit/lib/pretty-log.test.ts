import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/lib/logger.js';
import { formatLine, prettyLogStream } from '../../../src/lib/pretty-log.js';

const TIME = new Date(2026, 0, 2, 9, 5, 7, 42).getTime();

function sink(): { stream: Writable; text(): string } {
  const chunks: string[] = [];
  return {
    stream: new Writable({
      write(chunk, _encoding, done) {
        chunks.push(String(chunk));
        done();
      },
    }),
    text: () => chunks.join(''),
  };
}

describe('pretty log lines', () => {
  it('shows local time, level, component and message first, then the fields as key=value', () => {
    const line = JSON.stringify({ level: 30, time: TIME, pid: 1, hostname: 'h', component: 'reconcile', id: 'abc', file: 'dashboards/a.yaml', action: 'update', msg: 'dashboard updated' });
    expect(formatLine(line)).toBe('09:05:07.042 INFO  [reconcile] dashboard updated id=abc file=dashboards/a.yaml action=update');
  });

  it('quotes text with spaces, shows numbers, arrays and objects as JSON, and an error as its message', () => {
    const line = JSON.stringify({
      level: 40,
      time: TIME,
      msg: 'drift found',
      note: 'two words',
      n: 3,
      patch: ['replace tiles[0].name'],
      err: { type: 'TransportError', message: 'could not reach', stack: 'TransportError: …\n    at x' },
    });
    expect(formatLine(line)).toBe('09:05:07.042 WARN  drift found note="two words" n=3 patch=["replace tiles[0].name"] err="could not reach"');
  });

  it('writes control characters of any field as \\u escapes, so a commit subject cannot drive the terminal', () => {
    const subject = 'innocent\u001b]0;PWNED\u0007\u001b[1A\u001b[2KINFO-looks-fine\b\b';
    const line = JSON.stringify({
      level: 30, time: TIME, component: 'git\u001b[2J', msg: 'new revision\u009b2J fetched', subject, author: 'a\u007fb', list: ['x\u009by'], err: { message: 'bad\u001bc' },
    });
    const shown = formatLine(line);
    expect(shown).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(shown).toBe(
      '09:05:07.042 INFO  [git\\u001b[2J] new revision\\u009b2J fetched ' +
        'subject="innocent\\u001b]0;PWNED\\u0007\\u001b[1A\\u001b[2KINFO-looks-fine\\b\\b" author="a\\u007fb" list=["x\\u009by"] err="bad\\u001bc"',
    );
    // Colour, which the formatter adds itself, is kept.
    expect(formatLine(line, { color: true })).toContain('\u001b[32mINFO \u001b[0m');
  });

  it('writes bidirectional formatting characters and line separators as \\u escapes: a file name cannot show itself reversed', () => {
    const line = JSON.stringify({ level: 30, time: TIME, msg: 'file changed', file: 'invoice\u202elmth.exe', note: 'a\u2066b\u2028c' });
    expect(formatLine(line)).toBe('09:05:07.042 INFO  file changed file="invoice\\u202elmth.exe" note="a\\u2066b\\u2028c"');
  });

  it('colours the level only when asked', () => {
    const line = JSON.stringify({ level: 50, time: TIME, msg: 'boom' });
    expect(formatLine(line, { color: true })).toBe('09:05:07.042 \u001b[31mERROR\u001b[0m boom');
    expect(formatLine(line)).toBe('09:05:07.042 ERROR boom');
  });

  it('passes lines that are not JSON objects through unchanged', () => {
    expect(formatLine('plain text')).toBe('plain text');
    expect(formatLine('[1,2]')).toBe('[1,2]');
  });

  it('reassembles lines split across writes', () => {
    const out = sink();
    const stream = prettyLogStream(out.stream);
    const line = JSON.stringify({ level: 30, time: TIME, msg: 'hello' });
    stream.write(line.slice(0, 10));
    stream.write(`${line.slice(10)}\n${line}`);
    stream.end('\n');
    return new Promise<void>((resolve) =>
      stream.on('finish', () => {
        expect(out.text()).toBe('09:05:07.042 INFO  hello\n09:05:07.042 INFO  hello\n');
        resolve();
      }),
    );
  });

  it('never shows a token the logger was given, in any field', async () => {
    const out = sink();
    const token = 'dt0c01.ABCDEFGHIJKLMNOPQRSTUVWX.ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ012345';
    const log = createLogger({ destination: prettyLogStream(out.stream) });
    log.info({ token, url: `http://x/api?Api-Token=${token}`, headers: { authorization: `Api-Token ${token}` }, note: `curl -H "Authorization: Api-Token ${token}"` }, `using ${token}`);
    await new Promise((resolve) => setImmediate(resolve));
    expect(out.text()).toContain('INFO ');
    expect(out.text()).not.toContain(token);
    expect(out.text()).not.toMatch(/dt0c01\.[A-Z0-9]+\.[A-Z0-9]+/);
  });
});
