import { Writable } from 'node:stream';

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO ', 40: 'WARN ', 50: 'ERROR', 60: 'FATAL' };
const OMIT = new Set(['level', 'time', 'msg', 'pid', 'hostname']);

/**
 * Turns pino's JSON lines into `12:00:01 INFO  dashboard updated id=… file=…` for people at a terminal. Written here
 * rather than adding pino-pretty: a dozen lines cover what the daemon prints. Tokens were redacted before
 * serialisation, so formatting cannot leak one.
 */
export function prettyLogStream(out: NodeJS.WritableStream): Writable {
  let buffered = '';
  return new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      buffered += chunk.toString();
      let newline = buffered.indexOf('\n');
      while (newline !== -1) {
        out.write(`${formatLine(buffered.slice(0, newline))}\n`);
        buffered = buffered.slice(newline + 1);
        newline = buffered.indexOf('\n');
      }
      callback();
    },
  });
}

export function formatLine(line: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const time = typeof record.time === 'number' ? new Date(record.time).toISOString().slice(11, 19) : '--:--:--';
  const level = LEVELS[Number(record.level)] ?? String(record.level);
  const fields = Object.entries(record)
    .filter(([key]) => !OMIT.has(key))
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return [time, level, String(record.msg ?? ''), ...fields].join(' ');
}
