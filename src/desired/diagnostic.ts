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
}

/**
 * `path/to/file.yaml:LINE:COL  tiles[3].bounds: message` (two spaces), without `:LINE:COL` when there is none;
 * `…:COL  [prod] tiles[3].bounds: message` for a problem in some environments only.
 */
export function formatDiagnostic(d: Diagnostic): string {
  const where = d.line > 0 ? `${d.file}:${d.line}:${d.col}` : d.file;
  return `${where}  ${d.env !== undefined ? `[${d.env}] ` : ''}${d.path === '' ? '' : `${d.path}: `}${d.message}`;
}

/** A warning as `formatDiagnostic` writes it, marked: `path/to/file.yaml:LINE:COL  warning: tiles[3].foo: message`. */
export function formatWarning(d: Diagnostic): string {
  return formatDiagnostic({ ...d, path: d.path === '' ? 'warning' : `warning: ${d.path}` });
}
