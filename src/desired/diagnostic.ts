import { printable } from '../lib/printable.js';

/**
 * A problem in the desired state. `file` is relative to `cwd` with `/` separators; `line`/`col` are 1-based, or 0
 * when there is no position (a missing folder, an unreadable file); `path` is `tiles[3].bounds` style, `''` for
 * the file as a whole.
 */
export interface Diagnostic {
  file: string;
  line: number;
  col: number;
  path: string;
  message: string;
  /** The environment(s) the problem is in, when values make it environment-specific (`prod`, `dev, prod`). */
  env?: string;
  /**
   * The value of dashcd.yaml at fault (`values.height`), whose definition the message names: the file is right and
   * the environment's values are not, so the daemon stops that environment's writes rather than skip the file.
   */
  valueAtFault?: string;
}

/**
 * `path/to/file.yaml:LINE:COL  tiles[3].bounds: message` (two spaces), without `:LINE:COL` when there is none;
 * `…:COL  [prod] tiles[3].bounds: message` for a problem in some environments only. Always one line of `printable`
 * text: the file's name, the keys in the path and the words of a message (which may quote a file, a key or a value)
 * are a committer's, and a name holding an escape sequence or a line break could drive the terminal or start a
 * line of its own in a CI log (GitHub Actions runs a line `::error …::` or `::add-mask::…` as a command).
 */
export function formatDiagnostic(d: Diagnostic): string {
  // `./` before a path starting with `:`: a committed file `::error title=X::a.yaml`, validated from its own folder,
  // began a line GitHub Actions reads as a workflow command.
  const file = d.file.startsWith(':') ? `./${d.file}` : d.file;
  const where = d.line > 0 ? `${file}:${d.line}:${d.col}` : file;
  return printable(`${where}  ${d.env !== undefined ? `[${d.env}] ` : ''}${d.path === '' ? '' : `${d.path}: `}${d.message}`);
}

/** A warning as `formatDiagnostic` writes it, marked: `path/to/file.yaml:LINE:COL  warning: tiles[3].foo: message`. */
export function formatWarning(d: Diagnostic): string {
  return formatDiagnostic({ ...d, path: d.path === '' ? 'warning' : `warning: ${d.path}` });
}
