import { posix } from 'node:path';

/**
 * How today's bench is made to compile and run against an older `src/` (`npm run bench -- --before <commit>`).
 * Nothing here is written for one commit: each shim is chosen by looking at the old tree, and each says why it
 * applied, so the compare report lists exactly what differs from the code as it was.
 *
 * - **server options** — an option of today's `startServer` call (`bench/children/dashcd-server.ts`) whose word the
 *   old `src/server/` never mentions is dropped (with the import that fed it), and so is a wait in `settled` for a
 *   journal or document store the old server does not have: there is nothing to wait for.
 * - **harness helper** — a module the bench imports from `src/` that the old tree lacks and that imports nothing but
 *   `node:` builtins (Node options for server processes, multipart encoding) is copied from today, so both builds'
 *   servers run with the same Node options and their clients send the same bytes.
 * - **moved** — a name the old tree exports from another module of the same directory is re-exported from there
 *   (`openEventStore` lived in `event-store.ts`).
 * - **constant** — a numeric constant of today's module (`MAX_JOURNAL_BYTES`) is copied, so a figure sizes its setup
 *   (the tmpfs it needs) the same for both builds.
 * - **absent** — anything else is a feature the old code does not have: a stub whose use throws NotMeasurableYet
 *   ("… is not in <sha>"), so the figure that needs it says so instead of failing.
 */

/** Read access to a tree of files by repository-relative path; undefined when the file is not there. */
export interface Tree {
  read(path: string): string | undefined;
  /** Every `.ts` file under a directory (repository-relative paths). */
  list(dir: string): string[];
}

export interface ShimFile {
  path: string;
  content: string;
}

export interface ShimPlan {
  /** Files of the overlaid bench, edited where the server options shim applied. */
  bench: ShimFile[];
  /** Files written into the old `src/` (created, or an old file with stub exports appended). */
  src: ShimFile[];
  /** One line per shim applied, for the compare report. */
  applied: string[];
}

interface ServerEdit {
  /** Today's name for the feature, as the report names the shim. */
  word: string;
  /** Its use in today's child, and what the old `src/server/` must contain (not a comment's word) for it to stay. */
  found: RegExp;
  why: string;
  /** Exact text in today's file, each removed. */
  remove: string[];
}

const SERVER_FILE = 'bench/children/dashcd-server.ts';

const SERVER_EDITS: readonly ServerEdit[] = [
  { word: 'hotBytes', found: /\bhotBytes\??:/, why: 'no served-bytes cache option', remove: ["import { SERVE_HOT_BYTES } from '../../src/server/store/served-bytes.js';\n", 'hotBytes: SERVE_HOT_BYTES, '] },
  { word: 'bodyWorkers', found: /\bbodyWorkers\??:/, why: 'no body workers', remove: ["import { defaultBodyWorkers } from '../../src/server/server-node-options.js';\n", 'bodyWorkers: defaultBodyWorkers(), '] },
  { word: 'flushed', found: /\bflushed\s*[(:]/, why: 'no dashboards journal: settled does not wait for it', remove: ['    await local.dashboards.flushed();\n'] },
  { word: 'documentsFlushed', found: /\bdocumentsFlushed\s*[(:]/, why: 'no document store: settled does not wait for it', remove: ['    await server.documentsFlushed();\n'] },
];

function serverEdits(content: string, oldServerText: string, sha: string): { content: string; applied: string[] } {
  const applied: string[] = [];
  let edited = content;
  for (const edit of SERVER_EDITS) {
    // Not used by today's child, or there in the old server: nothing to drop.
    if (!edit.found.test(content) || edit.found.test(oldServerText)) continue;
    for (const text of edit.remove) {
      if (!edited.includes(text)) throw new Error(`before shim "${edit.word}" no longer matches ${SERVER_FILE} (looked for ${JSON.stringify(text)}): update bench/lib/before-shims.ts`);
      edited = edited.replace(text, '');
    }
    applied.push(`server options: ${sha}'s server has ${edit.why} (${SERVER_FILE})`);
  }
  return { content: edited, applied };
}

export interface SrcImport {
  /** `src/…/x.ts`, repository-relative. */
  module: string;
  name: string;
  typeOnly: boolean;
}

const SRC_IMPORT = /^import\s+(type\s+)?\{([^}]*)\}\s+from\s+'((?:\.\.\/)+src\/[^']+)\.js';/gm;

/** Named imports from `src/` in a bench file (the bench imports only so: `import { a, type B } from '../../src/x.js'`). */
export function srcImports(file: string, content: string): SrcImport[] {
  const found: SrcImport[] = [];
  for (const match of content.matchAll(SRC_IMPORT)) {
    const module = `${posix.join(posix.dirname(file), match[3] ?? '')}.ts`;
    for (const raw of (match[2] ?? '').split(',')) {
      const spec = raw.trim();
      if (spec === '') continue;
      const typeOnly = match[1] !== undefined || spec.startsWith('type ');
      const name = spec.replace(/^type\s+/, '').split(/\s+as\s+/)[0] ?? spec;
      found.push({ module, name, typeOnly });
    }
  }
  return found;
}

const exportPattern = (name: string): RegExp => new RegExp(`^export\\s+(?:declare\\s+)?(?:async\\s+)?(?:const|let|function\\*?|class|abstract\\s+class|interface|type|enum)\\s+${name}\\b|^export\\s+(?:type\\s+)?\\{[^}]*\\b${name}\\b[^}]*\\}`, 'm');

export const exportsName = (content: string, name: string): boolean => exportPattern(name).test(content);

/** Imports only `node:` builtins: safe to compile into any tree. */
export const selfContained = (content: string): boolean => [...content.matchAll(/from\s+'([^']+)'/g)].every((m) => m[1]?.startsWith('node:'));

/** `export const NAME = 256 * 1024 * 1024;` (digits and arithmetic only), or undefined. */
export function numericConstant(content: string, name: string): string | undefined {
  return new RegExp(`^export const ${name} = [\\d_\\s*+()]+;$`, 'm').exec(content)?.[0];
}

function stubLine(imp: SrcImport, sha: string): string {
  if (imp.typeOnly) return `export type ${imp.name} = any;`;
  return `export const ${imp.name}: any = absent(${JSON.stringify(`${imp.name} (${imp.module}) is not in ${sha}`)});`;
}

/** The stub's helper: any use of an absent name (call, property, construction) throws NotMeasurableYet. */
function stubPrelude(module: string): string {
  const figure = posix.relative(posix.dirname(module), 'bench/lib/figure.js');
  return [
    `// Bench shim (bench/lib/before-shims.ts): names the bench imports that this commit does not have.`,
    `import { NotMeasurableYet } from '${figure}';`,
    `const absent = (what: string): unknown => {`,
    `  const fail = (): never => {`,
    `    throw new NotMeasurableYet(what);`,
    `  };`,
    `  return new Proxy(fail, { get: fail, apply: fail, construct: fail });`,
    `};`,
  ].join('\n');
}

/** The old file's lines for the names it lacks: moved, constant, or absent. */
function missingNames(module: string, imports: SrcImport[], now: Tree, old: Tree, sha: string): { lines: string[]; applied: string[]; stubbed: boolean } {
  const lines: string[] = [];
  const applied: string[] = [];
  let stubbed = false;
  const siblings = old.list(posix.dirname(module)).filter((f) => f !== module);
  for (const imp of imports) {
    const home = siblings.find((f) => exportsName(old.read(f) ?? '', imp.name));
    const constant = numericConstant(now.read(module) ?? '', imp.name);
    if (home) {
      lines.push(`export ${imp.typeOnly ? 'type ' : ''}{ ${imp.name} } from './${posix.basename(home, '.ts')}.js';`);
      applied.push(`moved: ${imp.name} re-exported from ${home} as ${module}`);
    } else if (constant) {
      lines.push(constant);
      applied.push(`constant: ${imp.name} copied from today's ${module}`);
    } else {
      lines.push(stubLine(imp, sha));
      stubbed = stubbed || !imp.typeOnly;
      applied.push(`absent: ${imp.name} (${module}) is not in ${sha}; figures that use it say so`);
    }
  }
  return { lines, applied, stubbed };
}

/**
 * The shims today's bench (`bench`: its files, repository-relative) needs over an old tree. `now` is today's tree
 * (for harness helpers and constants), `old` the commit's, `sha` its short name for messages.
 */
export function planShims(bench: readonly ShimFile[], now: Tree, old: Tree, sha: string): ShimPlan {
  const oldServerText = old.list('src/server').map((f) => old.read(f) ?? '').join('\n');
  const applied: string[] = [];
  const edited = bench.map((file) => {
    if (file.path !== SERVER_FILE) return file;
    const result = serverEdits(file.content, oldServerText, sha);
    applied.push(...result.applied);
    return { path: file.path, content: result.content };
  });
  const byModule = new Map<string, SrcImport[]>();
  for (const file of edited) {
    for (const imp of srcImports(file.path, file.content)) {
      const list = byModule.get(imp.module) ?? [];
      const seen = list.find((i) => i.name === imp.name);
      if (seen) seen.typeOnly &&= imp.typeOnly;
      else list.push({ ...imp });
      byModule.set(imp.module, list);
    }
  }
  const src: ShimFile[] = [];
  for (const [module, imports] of [...byModule].sort(([a], [b]) => a.localeCompare(b))) {
    const oldText = old.read(module);
    const nowText = now.read(module);
    if (oldText === undefined && nowText !== undefined && selfContained(nowText)) {
      src.push({ path: module, content: nowText });
      applied.push(`harness helper: ${module} copied from today (imports only node: builtins)`);
      continue;
    }
    const lacking = oldText === undefined ? imports : imports.filter((imp) => !exportsName(oldText, imp.name));
    if (lacking.length === 0) continue;
    const missing = missingNames(module, lacking, now, old, sha);
    applied.push(...missing.applied);
    const body = [...(missing.stubbed ? [stubPrelude(module)] : []), ...missing.lines].join('\n');
    src.push({ path: module, content: oldText === undefined ? `${body}\n` : `${oldText}\n${body}\n` });
  }
  return { bench: edited, src, applied };
}
