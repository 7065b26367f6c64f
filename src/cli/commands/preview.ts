import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, extname, join, relative, resolve } from 'node:path';
import { mkdirDurable, writeFileDurable } from '../../lib/durable-file.js';
import { renderHtmlPage } from '../../preview/render-html.js';
import { renderLayoutSvg } from '../../preview/render-layout.js';
import { svgToPng } from '../../preview/render-png.js';
import { discoverFiles } from '../../desired/discover-files.js';
import { documentValue, flowNestingOffset, NESTED_TOO_DEEPLY, parseYamlDocument } from '../../desired/yaml-hazards.js';
import { MAX_SOURCE_BYTES } from '../../schema/limits.js';
import { isPlainObject } from '../../environments/deep-merge.js';
import { templateUses } from '../../environments/template.js';
import { isItemId, readLiveItem } from '../../kinds/kinds.js';
import { defineCommand, stringFlag, type CommandIo, type FlagValues } from '../command.js';
import { dataFlag, targetFlag } from '../common-flags.js';
import { CliError, ExitCode, UsageError } from '../exit-codes.js';
import { withOneTarget } from '../one-target.js';
import type { TargetSession } from '../target.js';
import { printDiagnostics } from '../diagnostics-output.js';
import { previewEnvironment, renderFilesFor, type PreviewEnvironment } from '../preview-environment.js';
import { requireRealFolders } from '../real-folder.js';
import { ensureGitIgnoredFolder } from '../../lib/git-ignored-folder.js';
import { pushAll } from '../../lib/push-all.js';

const FORMATS = ['svg', 'png', 'html'] as const;
/** Where pictures go without --out: `previews/` in the working folder. */
const DEFAULT_OUT = 'previews';
type Format = (typeof FORMATS)[number];

interface Source {
  /** File name stem of the picture. */
  stem: string;
  dashboard: unknown;
}

export const previewCommand = defineCommand({
  path: ['preview'],
  summary: 'Draw dashboards’ layouts (tiles on the 38 px grid, names, types, markdown, tags, filters) as SVG, PNG or HTML',
  description:
    'Each argument is a dashboard file (YAML or JSON), a folder of them (drawn as plan reads it) or the id of a live\n' +
    'dashboard on the target. Writes one picture per dashboard into --out and prints the paths. PNG is rendered\n' +
    'without a browser.\n\n' +
    'With environments in dashcd.yaml, an id is read from the one environment --env NAME chooses (its target and\n' +
    'token), as pull and trash do: without --env, exit 64 lists the declared ones. Files need no target: they are\n' +
    'drawn without --env as written (templated ones as the only environment renders them).',
  flags: {
    out: { type: 'string', description: 'Folder for the pictures (previews/, when dashcd makes it, gets a .gitignore that keeps it out of git)', default: DEFAULT_OUT, valueName: 'path' },
    format: { type: 'string', description: 'svg | png | html', default: 'svg', valueName: 'format' },
    target: targetFlag,
    data: dataFlag,
    env: { type: 'string', description: 'Draw files as this environment of dashcd.yaml renders them (default: the only one), and read ids from its target (required for ids when dashcd.yaml declares environments)', valueName: 'id' },
  },
  positionals: [{ name: 'file|folder|id', description: 'Dashboard files or folders of them, or ids of live dashboards', variadic: true, required: true }],
  examples: ['dashcd preview dashboards/platform/hosts.yaml', 'dashcd preview --format png --out previews dashboards/platform', 'dashcd preview 0a1b2c3d-0000-4000-8000-000000000001', 'dashcd preview --env prod dashboards/platform/service-health.yaml', 'dashcd preview --env dev 0a1b2c3d-0000-4000-8000-000000000001'],
  async run({ flags, positionals }, io) {
    const format = stringFlag(flags, 'format') ?? 'svg';
    if (!(FORMATS as readonly string[]).includes(format)) throw new UsageError(`--format must be svg, png or html, got '${format}'`);
    if (positionals.length === 0) throw new UsageError('give at least one dashboard file, folder or id');
    const { files, ids } = await sortArguments(positionals, io);
    const drawn = await fileSources(files, flags, io);
    const out = stringFlag(flags, 'out') ?? DEFAULT_OUT;
    const write = (sources: readonly Source[]): Promise<ExitCode> => writePictures(sources, { given: out, out: resolve(io.cwd, out), byDefault: resolve(io.cwd, out) === resolve(io.cwd, DEFAULT_OUT), format: format as Format }, io);
    if (ids.length === 0) return write(drawn);
    // Ids come from one target, chosen as pull and trash choose theirs: with environments in dashcd.yaml, the one
    // --env names (exit 64 listing them without it), so an id is never looked for in a store the project does not use.
    return withOneTarget(flags, io, 'preview', async (target) => write([...drawn, ...(await liveSources(target, ids))]), { scopes: ['ReadConfig'] });
  },
});

/**
 * Pictures are named after committed files: every folder they go into is checked before the first is written, so a
 * refused `--out` (a link on the way, requireRealFolders) leaves no picture anywhere.
 */
async function writePictures(sources: readonly Source[], { given, out, byDefault, format }: { given: string; out: string; byDefault: boolean; format: Format }, io: CommandIo): Promise<ExitCode> {
  const paths = sources.map((source) => join(out, `${source.stem}.${format}`));
  const folders = [...new Set([out, ...paths.map((path) => dirname(path))])].map((folder) => ({ folder, naming: `--out ${given}` }));
  await requireRealFolders(io.cwd, folders, 'name a folder of its own (pictures are written only into real folders)');
  if (paths.length === 0) return ExitCode.Success;
  // The default folder is in the project's repository: made here, it is kept out of `git status`, as the data dir
  // is. One that was there already, or another --out names, is the user's, to commit or not.
  if (byDefault) await ensureGitIgnoredFolder(out);
  for (const [index, source] of sources.entries()) {
    const path = paths[index] as string;
    await mkdirDurable(dirname(path));
    await writeFileDurable(path, picture(source, format));
    io.stdout.write(`${path}\n`);
  }
  return ExitCode.Success;
}

function picture(source: Source, format: Format): string | Uint8Array {
  const svg = renderLayoutSvg(source.dashboard);
  if (format === 'png') return svgToPng(svg);
  if (format === 'html') return renderHtmlPage(`Preview: ${source.stem}`, [], [{ heading: source.stem, svg }]);
  return svg;
}

type DashboardFile = { shown: string; stem: string; path: string };

/** Files (a folder stands for its dashboard files) and ids, in the order given; anything else is exit 64. */
async function sortArguments(args: readonly string[], io: CommandIo): Promise<{ files: DashboardFile[]; ids: string[] }> {
  const files: DashboardFile[] = [];
  const ids: string[] = [];
  for (const arg of args) {
    const path = resolve(io.cwd, arg);
    const kind = await pathKind(path);
    if (kind === 'file') files.push({ shown: arg, stem: basename(arg, extname(arg)), path });
    else if (kind === 'folder') pushAll(files, await filesIn(path, io));
    else if (isItemId(arg)) ids.push(arg);
    else throw new UsageError(`'${arg}' is neither a file, a folder nor a dashboard or document id`);
  }
  return { files, ids };
}

/** The files as written, or as the environment --env names (or templates call for) renders them: no target needed. */
async function fileSources(files: readonly DashboardFile[], flags: FlagValues, io: CommandIo): Promise<Source[]> {
  const written = await Promise.all(files.map((f) => readDashboardFile(f.path)));
  const templated = files.filter((_, i) => usesTemplates(written[i])).map((f) => f.shown);
  const env = await previewEnvironment(stringFlag(flags, 'env'), templated, io);
  // An environment reads the files itself and reports what does not parse, with where.
  const bodies = env ? await environmentBodies(env, files, io) : files.map((f, i) => readable(written[i], f.shown));
  return files.map((f, i) => ({ stem: f.stem, dashboard: bodies[i] }));
}

/** The live dashboards or documents by id; one the target lacks is exit 1, before any picture is written. */
async function liveSources(target: TargetSession, ids: readonly string[]): Promise<Source[]> {
  const live = await Promise.all(ids.map((id) => readLiveItem(target.client, id)));
  const missing = ids.find((_, i) => live[i] === undefined);
  if (missing) throw new CliError(`dashboard ${missing} not found on ${target.label}`, ExitCode.Unexpected);
  return ids.map((id, i) => ({ stem: id, dashboard: live[i] }));
}

/** A folder's dashboard files, as plan and validate read it; each picture keeps the file's place below the folder. */
async function filesIn(folder: string, io: CommandIo): Promise<DashboardFile[]> {
  const found = await discoverFiles(folder);
  const names = found.missing ? [] : found.files;
  return names.map((name) => ({ shown: relative(io.cwd, join(folder, name)), stem: name.slice(0, -extname(name).length), path: join(folder, name) }));
}

type Written = { value: unknown } | { error: unknown };

function usesTemplates(written: Written | undefined): boolean {
  return written !== undefined && 'value' in written && isPlainObject(written.value) && templateUses(written.value).length > 0;
}

/** The files as the environment renders them; a file that does not render there is exit 3 with its problems. */
async function environmentBodies(env: PreviewEnvironment, files: readonly { path: string }[], io: CommandIo): Promise<unknown[]> {
  const rendered = await renderFilesFor(env, files.map((f) => f.path), io);
  if (rendered.kind === 'invalid') {
    printDiagnostics(rendered.diagnostics, io);
    throw new CliError(`not drawn: the files do not render for ${env.environment.name}`, ExitCode.InvalidDesiredState);
  }
  return files.map((f) => {
    const body = rendered.bodies.get(f.path);
    if (body === undefined) throw new CliError(`${relative(io.cwd, f.path)}: not a dashboard of ${env.environment.name} (its dashcd: environments leave it out)`, ExitCode.InvalidDesiredState);
    return body;
  });
}

async function pathKind(path: string): Promise<'file' | 'folder' | undefined> {
  const info = await stat(path).catch(() => undefined);
  return info?.isFile() ? 'file' : info?.isDirectory() ? 'folder' : undefined;
}

/**
 * A file to draw, read as every other reader of a committer's file reads it (a pull request's job may run this): up
 * to MAX_SOURCE_BYTES, repeated keys found in linear time, aliases bounded (yaml-hazards.ts).
 */
async function readDashboardFile(path: string): Promise<Written> {
  try {
    const { size } = await stat(path);
    if (size > MAX_SOURCE_BYTES) return { error: new Error(`${(size / (1024 * 1024)).toFixed(1)} MiB: a file is read up to ${MAX_SOURCE_BYTES / (1024 * 1024)} MiB`) };
    const source = await readFile(path, 'utf8');
    if (flowNestingOffset(source) !== undefined) return { error: new Error(NESTED_TOO_DEEPLY) };
    const doc = parseYamlDocument(source, { prettyErrors: false });
    const read = doc.errors.length === 0 ? documentValue(doc) : undefined;
    if (read?.ok) return { value: read.value };
    return { error: new Error(doc.errors[0]?.message ?? (read && !read.ok ? read.problems[0]?.message : undefined)) };
  } catch (error) {
    return { error };
  }
}

function readable(written: Written | undefined, shown: string): unknown {
  if (written !== undefined && 'value' in written) return written.value;
  const error = written?.error;
  throw new CliError(`${shown}: not a readable dashboard file (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`, ExitCode.InvalidDesiredState, { cause: error });
}
