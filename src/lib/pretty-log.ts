import { Writable } from 'node:stream';
import { UNPRINTABLE_CHARACTERS } from './printable.js';

const LEVELS: Readonly<Record<number, { name: string; color: string }>> = {
  10: { name: 'TRACE', color: '90' },
  20: { name: 'DEBUG', color: '90' },
  30: { name: 'INFO ', color: '32' },
  40: { name: 'WARN ', color: '33' },
  50: { name: 'ERROR', color: '31' },
  60: { name: 'FATAL', color: '35' },
};
/** pino's own bookkeeping; `component` is shown as a prefix instead. */
const OMIT = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'component']);

export interface PrettyOptions {
  /** ANSI colours for the level (the caller decides: a terminal, NO_COLOR unset). */
  color?: boolean;
}

/**
 * Turns pino's JSON lines into `12:00:01.250 INFO  [reconcile] dashboard updated id=… file=…` for a person at a
 * terminal. Written here rather than adding pino-pretty: a few lines cover what the daemon prints. Tokens were
 * redacted before serialisation, so formatting cannot leak one.
 */
export function prettyLogStream(out: NodeJS.WritableStream, { color = false }: PrettyOptions = {}): Writable {
  let buffered = '';
  return new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      buffered += chunk.toString();
      let newline = buffered.indexOf('\n');
      while (newline !== -1) {
        out.write(`${formatLine(buffered.slice(0, newline), { color })}\n`);
        buffered = buffered.slice(newline + 1);
        newline = buffered.indexOf('\n');
      }
      callback();
    },
    final(callback) {
      if (buffered !== '') out.write(`${formatLine(buffered, { color })}\n`);
      callback();
    },
  });
}

/** One pino JSON line → one readable line (local time); anything that is not a JSON object passes through as is. */
export function formatLine(line: string, { color = false }: PrettyOptions = {}): string {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return line;
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return line;
  const fields = record as Record<string, unknown>;
  const level = LEVELS[Number(fields.level)];
  const levelText = level ? (color ? `\u001b[${level.color}m${level.name}\u001b[0m` : level.name) : String(fields.level ?? '');
  const parts = [clockTime(fields.time), levelText];
  if (typeof fields.component === 'string') parts.push(`[${visible(fields.component)}]`);
  parts.push(visible(String(fields.msg ?? '')));
  for (const [key, value] of Object.entries(fields)) if (!OMIT.has(key) && value !== undefined) parts.push(`${visible(key)}=${formatValue(value)}`);
  return parts.join(' ');
}

function clockTime(time: unknown): string {
  if (typeof time !== 'number') return '--:--:--.---';
  const d = new Date(time);
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

/** Bare words stay bare; text with spaces, quotes or `=` is quoted so each field stays one token; errors show their message. */
function formatValue(value: unknown): string {
  if (typeof value === 'string') return BARE_WORD.test(value) ? value : visible(JSON.stringify(value));
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as { message?: unknown }).message === 'string') {
    return visible(JSON.stringify((value as { message: string }).message));
  }
  return visible(JSON.stringify(value) ?? String(value));
}

const CONTROLS = new RegExp(`[${UNPRINTABLE_CHARACTERS}]`, 'g');
const BARE_WORD = new RegExp(`^[^\\s"=${UNPRINTABLE_CHARACTERS}]+$`);

/**
 * Control characters written as `\u001b`: a commit subject, an author or a file name (a committer's words) could
 * otherwise set the terminal's title, move its cursor or overwrite the line that warned about that very commit.
 * JSON.stringify escapes C0 but leaves DEL and the C1 controls (U+009B is an 8-bit CSI) raw.
 */
function visible(text: string): string {
  return text.replace(CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
