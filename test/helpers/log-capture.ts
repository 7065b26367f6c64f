import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/lib/logger.js';

/** A real logger (info level unless told) whose JSON lines land, parsed, in `lines`: for asserting what a component logged. */
export function captureLog(level = 'info'): { lines: Array<Record<string, unknown>>; log: Logger } {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  return { lines, log: createLogger({ level, destination }) };
}
