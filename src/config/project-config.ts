import { constants } from 'node:fs';
import { lstat, open, realpath, type FileHandle } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { isMap, isScalar, LineCounter, type Document } from 'yaml';
import { z } from 'zod';
import { ABOUT_THE_NAME, checkEnvironmentsConfig, environmentsShape, NEEDS_ENVIRONMENTS } from '../environments/environments-config.js';
import { closest } from '../lib/closest.js';
import { pointerProblem } from '../plan/json-pointer.js';
import { unknownKeyMessage } from '../desired/hints.js';
import { cappedProblems, moreProblems } from '../desired/capped-problems.js';
import { keysAt } from '../desired/unknown-keys.js';
import { formatIssuePath } from '../schema/error-envelope.js';
import { deepFreeze } from '../lib/deep-freeze.js';
import { shownPath } from '../lib/shown-path.js';
import { documentValue, parseYamlDocument, flowNestingOffset, nestingMessage, tooDeepPath } from '../desired/yaml-hazards.js';
import { BODY_LIMIT_BYTES, MAX_JSON_DEPTH } from '../schema/limits.js';
import { schemaErrorMap } from '../desired/dashboard-rules.js';
import { configTypeMessage } from './config-type-message.js';
import { PROJECT_CONFIG_FILES } from '../schema/project-config-files.js';

/**
 * The mark apply puts on everything it writes, the same for both kinds (a classic dashboard's tag, the end of a
 * document's description): prune only ever deletes what carries it. Configurable in `dashcd.yaml` (`ownershipTag`).
 */
export const DEFAULT_OWNERSHIP_TAG = 'managed-by:dashcd';

export { PROJECT_CONFIG_FILES };

const IgnorePointer = z.string().superRefine((pointer, ctx) => {
  const problem = pointerProblem(pointer);
  if (problem) ctx.addIssue({ code: 'custom', message: `Not a JSON Pointer: ${problem}` });
});

/** `dashcd.yaml`. Strict: a misspelt key is reported instead of silently doing nothing. */
export const ProjectConfig = z.strictObject({
  // JSON Pointers left out of every comparison; a `*` segment matches any array index or key (`/tiles/*/bounds`).
  ignore: z.array(IgnorePointer).default([]),
  /** The tag apply adds and prune requires; a tag is one token, so surrounding blanks are refused. */
  ownershipTag: z
    .string()
    .min(1)
    .refine((tag) => tag.trim() === tag, 'must not start or end with whitespace')
    .default(DEFAULT_OWNERSHIP_TAG),
  /** Default for apply's `--max-delete`. */
  maxDelete: z.number().int().min(0).optional(),
  /**
   * Delete owned dashboards whose file is gone, in plan, apply and the daemon alike (`--prune`/`--no-prune` win), so
   * the pull-request plan shows the deletions the apply on main will make without anyone remembering a flag.
   */
  prune: z.boolean().default(false),
  /** Unknown keys in dashboard files are errors (exit 3) instead of warnings, for every command (as `--strict`). */
  strict: z.boolean().optional(),
  // `environments:`, `groups:`, `values:` (src/environments/): one repository, many environments.
  ...environmentsShape,
}).superRefine(checkEnvironmentsConfig);
export type ProjectConfig = z.output<typeof ProjectConfig>;

/** The same shape as a dashboard file's diagnostic: `path` is `ignore[0]` style, `''` for the file as a whole. */
export interface ProjectConfigDiagnostic {
  file: string;
  line: number;
  col: number;
  path: string;
  message: string;
}

export interface LoadProjectConfigResult {
  /** The defaults when there is no file — and also when there are diagnostics, which callers must treat as fatal. */
  config: ProjectConfig;
  file?: string;
  /** The file's text, for pointing at a value's definition from a dashboard's diagnostic. */
  source?: string;
  diagnostics: ProjectConfigDiagnostic[];
}

/**
 * The one strictness decision: `--strict` (`flag`), or `strict: true` in dashcd.yaml. Strict, every unknown key is
 * an error and its file is invalid (desired/strict.ts).
 */
export function isStrict(flag: boolean | undefined, config: Pick<ProjectConfig, 'strict'>): boolean {
  return flag === true || config.strict === true;
}

export const DEFAULT_PROJECT_CONFIG: ProjectConfig = { ignore: [], ownershipTag: DEFAULT_OWNERSHIP_TAG, prune: false };

/** Reads the optional `dashcd.yaml` at `root`. Every problem is a diagnostic at its line and column, never a throw. */
export async function loadProjectConfig(root: string): Promise<LoadProjectConfigResult> {
  for (const name of PROJECT_CONFIG_FILES) {
    const file = join(root, name);
    const read = await readOptional(file);
    if (read === undefined) continue;
    if (typeof read === 'string') return parsedOnce(read, file);
    return { config: defaults(), file, diagnostics: [{ file, line: 0, col: 0, path: '', message: `cannot read: ${read.message}` }] };
  }
  return { config: defaults(), diagnostics: [] };
}

/**
 * The last files read and what they gave, by path. A daemon reads its dashcd.yaml at every pass of each of its (up
 * to 100) environments, and a committed one of 2 MiB takes about 2 s to parse: the same text is parsed once. Frozen,
 * as every reader shares it.
 */
const lastParsed = new Map<string, { text: string; result: LoadProjectConfigResult }>();
const REMEMBERED_FILES = 8;

function parsedOnce(text: string, file: string): LoadProjectConfigResult {
  const known = lastParsed.get(file);
  lastParsed.delete(file);
  const result = known?.text === text ? known.result : deepFreeze(parseProjectConfig(text, file));
  lastParsed.set(file, { text, result });
  for (const oldest of lastParsed.keys()) {
    if (lastParsed.size <= REMEMBERED_FILES) break;
    lastParsed.delete(oldest);
  }
  return result;
}

/**
 * The project config of a dashboards folder: `dashcd.yaml` sits next to it (`dashboards/` → `./dashcd.yaml`), as
 * validate, plan, apply and pull all read it. Diagnostics name the file relative to `cwd` with `/` separators, like
 * the dashboard loader's.
 */
export async function loadProjectConfigFor(dashboardsDir: string, cwd: string): Promise<LoadProjectConfigResult> {
  const result = await loadProjectConfig(dirname(dashboardsDir));
  return { ...result, diagnostics: result.diagnostics.map((d) => ({ ...d, file: shownPath(cwd, d.file) })) };
}

/** The pure half of `loadProjectConfig`, for a file's text. */
export function parseProjectConfig(text: string, file: string): LoadProjectConfigResult {
  const lineCounter = new LineCounter();
  const at = (offset: number, path: string, message: string): ProjectConfigDiagnostic => {
    const { line, col } = lineCounter.linePos(offset);
    return { file, line: Math.max(line, 1), col: Math.max(col, 1), path, message };
  };
  const invalid = (diagnostics: ProjectConfigDiagnostic[]): LoadProjectConfigResult => ({ config: defaults(), file, source: text, diagnostics });
  // A committer writes this file and a daemon following the repository reads it: what would throw or recurse without
  // end (deep nesting, aliases that contain themselves or expand without bound) is a problem of the file, as in a
  // dashboard file, never an exception that stops the daemon.
  const deepFlow = flowNestingOffset(text);
  if (deepFlow !== undefined) return invalid([at(deepFlow, '', NESTED_TOO_DEEPLY_HERE)]);
  const doc = parseYamlDocument(text, { lineCounter, prettyErrors: false });
  if (doc.errors.length > 0) return invalid(doc.errors.map((e) => at(e.pos[0], '', nestingMessage(e) === undefined ? e.message : NESTED_TOO_DEEPLY_HERE)));
  const read = documentValue(doc);
  if (!read.ok) return invalid(read.problems.map((p) => at(p.offset, '', p.message)));
  const deep = tooDeepPath(read.value);
  if (deep !== undefined) return invalid([at(0, formatIssuePath(deep), `nested deeper than ${MAX_JSON_DEPTH} levels: dashcd.yaml needs a few`)]);
  const parsed = ProjectConfig.safeParse(read.value ?? {}, { error: (issue) => schemaErrorMap(issue) ?? configTypeMessage(issue) });
  if (parsed.success) return { config: parsed.data, file, source: text, diagnostics: [] };
  // Located and listed as a dashboard file's are: its first MAX_FILE_PROBLEMS, and a line for the rest.
  const located = withoutEcho(parsed.error.issues)
    .flatMap((issue) => locateIssue(doc, issue).map(({ offset, path, message }) => at(offset, path, message)))
    .sort((a, b) => a.line - b.line || a.col - b.col);
  const diagnostics = cappedProblems(located, (more, first) => ({ ...first, path: '', message: moreProblems(more) }));
  return { config: defaults(), file, source: text, diagnostics };
}

const NESTED_TOO_DEEPLY_HERE = 'collections nested too deeply to read: dashcd.yaml nests a few levels';

/**
 * A misspelt `enviroments:` is one problem, its did-you-mean: not also "values need environments" and "groups need
 * environments", which only echo it.
 */
function withoutEcho(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  const misspelt = issues.some((issue) => issue.code === 'unrecognized_keys' && issue.path.length === 0 && issue.keys.some((key) => closest(key, ['environments']) !== undefined));
  return misspelt ? issues.filter((issue) => !(issue.code === 'custom' && issue.params?.[NEEDS_ENVIRONMENTS] === true)) : [...issues];
}

function defaults(): ProjectConfig {
  return { ...DEFAULT_PROJECT_CONFIG, ignore: [] };
}

/**
 * One or more source positions for a zod issue: the offending node, its key for unknown keys, else the parent. An
 * unknown key is told as in a dashboard file: the key it most likely meant (`enviroments` → environments), else the
 * keys known at that level (not the top level's, for a key deeper down).
 */
function locateIssue(doc: Document, issue: z.core.$ZodIssue): { offset: number; path: string; message: string }[] {
  const path = issue.path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment));
  if (issue.code === 'unrecognized_keys') {
    const parent = path.length === 0 ? doc.contents : doc.getIn(path, true);
    const known = keysAt(ProjectConfig, path);
    return issue.keys.map((key) => ({ offset: keyOffset(parent, key) ?? 0, path: formatIssuePath([...path, key]), message: unknownKeyMessage({ parent: path, key, known }) }));
  }
  const shown = formatIssuePath(path);
  const name = path.at(-1);
  if (issue.code === 'custom' && issue.params?.[ABOUT_THE_NAME] === true && typeof name === 'string') {
    const offset = keyOffset(path.length === 1 ? doc.contents : doc.getIn(path.slice(0, -1), true), name);
    if (offset !== undefined) return [{ offset, path: shown, message: issue.message }];
  }
  for (let depth = path.length; depth >= 0; depth--) {
    const node = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth), true);
    const offset = nodeOffset(node);
    if (offset !== undefined) return [{ offset, path: shown, message: issue.message }];
  }
  return [{ offset: 0, path: shown, message: issue.message }];
}

function keyOffset(map: unknown, key: string): number | undefined {
  if (!isMap(map)) return undefined;
  const pair = map.items.find((item) => isScalar(item.key) && String(item.key.value) === key);
  return pair ? nodeOffset(pair.key) : undefined;
}

function nodeOffset(node: unknown): number | undefined {
  if (typeof node !== 'object' || node === null || !('range' in node)) return undefined;
  const range = (node as { range?: readonly number[] | null }).range;
  return range?.[0];
}

/**
 * Why a dashcd.yaml that is a symbolic link is not read: it leads out of its project's folder. The file is a
 * committer's, and what it says reaches the CI log and a pull request's plan comment (a value of the wrong type is
 * quoted in its problem): a link to /proc/self/environ or ~/.git-credentials put the start of the runner's secrets
 * there. A link within the project is read as the file it names.
 */
async function linkLeadingOutside(file: string): Promise<string | undefined> {
  const entry = await lstat(file);
  if (!entry.isSymbolicLink()) return undefined;
  const [target, folder] = await Promise.all([realpath(file), realpath(dirname(file))]);
  if (target.startsWith(`${folder}${sep}`)) return undefined;
  return 'it is a symbolic link to a file outside the project; dashcd reads only a dashcd.yaml within it';
}

/**
 * Room for a value as large as the largest dashboard a target accepts (a tile's markdown, say), twice over; settings
 * themselves take a few kB. A committer writes this file and a daemon following the repository reads it in each of up
 * to 100 environments: a 13 MB one of many entries took 11 s of parsing and 1.1 GB, during which nothing else in the
 * daemon answered.
 */
export const MAX_PROJECT_CONFIG_BYTES = 2 * BODY_LIMIT_BYTES;

/** The text, undefined when there is no such file, or the error that kept an existing one from being read. */
async function readOptional(file: string): Promise<string | Error | undefined> {
  let handle: FileHandle | undefined;
  try {
    const outside = await linkLeadingOutside(file);
    if (outside) return new Error(outside);
    // Non-blocking: a FIFO named dashcd.yaml would otherwise block the open until a writer came.
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const stats = await handle.stat();
    if (!stats.isFile()) return new Error('not a regular file (a directory, a device, a FIFO or a socket)');
    if (stats.size > MAX_PROJECT_CONFIG_BYTES) return new Error(`it is ${stats.size} bytes; a dashcd.yaml is read up to ${MAX_PROJECT_CONFIG_BYTES / (1024 * 1024)} MiB`);
    return await handle.readFile('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return error instanceof Error ? error : new Error(String(error));
  } finally {
    await handle?.close();
  }
}
