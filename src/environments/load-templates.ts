import { shownPath } from '../lib/shown-path.js';
import { resolve } from 'node:path';
import { LineCounter, type Document } from 'yaml';
import { isDashboardShaped, NOT_A_DASHBOARD, notADashboard } from '../desired/dashboard-rules.js';
import { isDocumentShaped } from '../desired/detect-kind.js';
import { discoverFiles, missingFolderDiagnostic } from '../desired/discover-files.js';
import { fastParseYaml } from '../desired/fast-yaml/fast-parse.js';
import { documentValue, parseYamlDocuments, flowNestingOffset, NESTED_TOO_DEEPLY } from '../desired/yaml-hazards.js';
import type { Diagnostic } from '../desired/diagnostic.js';
import { isJsonFile, notJsonProblem } from '../desired/json-file-check.js';
import { readSources } from '../desired/read-sources.js';
import type { PlainObject } from './deep-merge.js';
import { flowTemplateMessage, quoteFlowTemplates, unquotedFlowTemplates } from './flow-templates.js';
import type { TemplateFile } from './resolve-environment.js';
import { pushAll } from '../lib/push-all.js';

export interface LoadTemplatesResult {
  files: Omit<TemplateFile, 'block'>[];
  /** YAML that does not parse, a file that is not a dashboard, a missing folder: the same in every environment. */
  diagnostics: Diagnostic[];
  /** How many dashboard files were read. */
  count: number;
  /** Files there are but whose value is unknown (they do not parse, or cannot be read), by name in the folder. */
  unread: string[];
  /** The sha256 of each file's bytes as read, by its shown path: `pin` edits a file only while it still has them. */
  hashes: ReadonlyMap<string, string>;
}

/**
 * Reads the dashboards folder as templates: parsed, not validated, since `top: ${{ values.top }}` is a string
 * until an environment's values make it a number. Validation happens per environment (resolveEnvironments).
 */
export async function loadTemplates({ dir, cwd }: { dir: string; cwd: string }): Promise<LoadTemplatesResult> {
  const root = resolve(cwd, dir);
  const shown = (name: string): string => shownPath(cwd, resolve(root, name));
  const found = await discoverFiles(root);
  if (found.missing) return { files: [], diagnostics: [missingFolderDiagnostic(shown('.'))], count: 0, unread: [], hashes: new Map() };
  const files: LoadTemplatesResult['files'] = [];
  const diagnostics: Diagnostic[] = [];
  const unread: string[] = [];
  const hashes = new Map<string, string>();
  const sources = readSources(root, found.files).filter((f) => f.kind !== 'gone');
  for (const source of sources) {
    const file = shown(source.name);
    if (source.kind === 'unreadable') diagnostics.push({ file, line: 0, col: 0, path: '', message: `cannot read the file (${source.reason})` });
    if (source.kind !== 'read') {
      unread.push(source.name);
      continue;
    }
    hashes.set(file, source.contentHash);
    const notJson = notJsonAroundTemplates(source.name, source.source);
    if (notJson) {
      unread.push(source.name);
      pushAll(diagnostics, notJson.map((p) => ({ file, ...p })));
      continue;
    }
    const parsed = parseTemplateFile(source.source);
    if (!('value' in parsed)) unread.push(source.name);
    if ('value' in parsed) files.push({ file, name: source.name, source: source.source, value: parsed.value, ...(parsed.problems ? { referenceOnly: true as const } : {}) });
    pushAll(diagnostics, (parsed.problems ?? []).map((p) => ({ file, ...p })));
  }
  return { files, diagnostics, count: sources.length, unread, hashes };
}

type Problem = { line: number; col: number; path: string; message: string };

/**
 * A `.json` file is JSON around its templates, as without environments, where a trailing comma `validate` refused
 * passed once dashcd.yaml declared environments: each `${{ … }}` is read as a value of its own length (`0` and
 * blanks, its line breaks kept, so positions hold), whether it stands in a string or unquoted where JSON cannot hold
 * it, and what is left must be JSON. Its problems, or undefined.
 */
function notJsonAroundTemplates(name: string, source: string): Problem[] | undefined {
  if (!isJsonFile(name)) return undefined;
  const masked = source.replace(TEMPLATE, (template) => `0${template.slice(1).replace(/[^\n]/g, ' ')}`);
  const check = notJsonProblem(masked);
  return check && !check.ok ? check.problems : undefined;
}

const TEMPLATE = /\$\{\{[\s\S]*?\}\}/g;
/** `value` and `problems` both: the file read once its unquoted flow templates were quoted (see below). */
type Parsed = { value: PlainObject; problems?: Problem[] } | { problems: Problem[] };

/**
 * The fast parser when it accepts the file; else `yaml`, which also says where a syntax error is. Unquoted templates
 * in flow collections are one problem each, at the template, instead of `yaml`'s cascade of brace errors; the file
 * is then read as if they were quoted, so its id and the values it uses still count for the other files (no false
 * "no dashboard file" or "value unused" elsewhere), while its problems keep it out of every environment.
 */
export function parseTemplateFile(source: string): Parsed {
  const deep = flowNestingOffset(source);
  if (deep !== undefined) return { problems: [{ ...lineLocator(source)(deep), path: '', message: NESTED_TOO_DEEPLY }] };
  const fast = fastParseYaml(source);
  if (fast.ok) return isTemplateShaped(fast.value) ? { value: fast.value } : { problems: [{ line: 1, col: 1, path: '', message: notADashboard(fast.value) }] };
  const parsed = parseWithYaml(source);
  if ('value' in parsed) return parsed;
  const flow = unquotedFlowTemplates(source);
  if (flow.length === 0) return parsed;
  const at = lineLocator(source);
  const problems = flow.map((f) => ({ ...at(f.offset), path: '', message: flowTemplateMessage(f) }));
  const quoted = parseWithYaml(quoteFlowTemplates(source, flow));
  // The other mistakes as the text reads with its templates quoted: the unquoted ones' own cascade of brace errors
  // would hide them (only the first syntax error is shown).
  return 'value' in quoted ? { value: quoted.value, problems } : { problems: [...problems, ...quoted.problems] };
}

/** A classic dashboard, or a platform dashboard or notebook (a `document:` member, or a document's content). */
function isTemplateShaped(value: unknown): value is PlainObject {
  return isDashboardShaped(value) || isDocumentShaped(value);
}

/**
 * Line and column of offsets in `source`, its line starts found once: a file of 30,000 unquoted templates in one flow
 * list had the text before each split into lines again (5.3 s of a daemon pass for 240 kB).
 */
function lineLocator(source: string): (offset: number) => { line: number; col: number } {
  const lines = new LineCounter();
  lines.addNewLine(0);
  for (let end = source.indexOf('\n'); end !== -1; end = source.indexOf('\n', end + 1)) lines.addNewLine(end + 1);
  return (offset) => lines.linePos(offset);
}

function parseWithYaml(source: string): Parsed {
  const lines = new LineCounter();
  const docs = parseYamlDocuments(source, { lineCounter: lines, prettyErrors: false });
  const at = (offset: number): { line: number; col: number } => lines.linePos(offset);
  if (!Array.isArray(docs) || docs.length === 0) return { problems: [{ line: 1, col: 1, path: '', message: `${NOT_A_DASHBOARD} (the file holds no YAML document)` }] };
  const problems = docs.flatMap((doc) => doc.errors.map((e) => ({ ...at(e.pos[0]), path: '', message: e.message })));
  const second = docs[1];
  if (second !== undefined) problems.push({ ...at(second.range[0]), path: '', message: 'more than one YAML document (---): a dashboard file holds exactly one' });
  if (problems.length > 0) return { problems };
  const doc = docs[0] as Document.Parsed;
  // As in a file without environments (locate-problems.ts): an alias that contains itself or expands without bound is
  // the file's problem, with its place, not an exception that fails the whole pass without naming the file.
  const read = documentValue(doc);
  if (!read.ok) return { problems: read.problems.map((p) => ({ ...at(p.offset), path: '', message: p.message })) };
  const { value } = read;
  return isTemplateShaped(value) ? { value } : { problems: [{ line: 1, col: 1, path: '', message: notADashboard(value) }] };
}
