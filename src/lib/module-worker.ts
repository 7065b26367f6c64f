import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread running the module `name` (no extension) beside `from` (the caller's import.meta.url): its `.js`
 * in built code, its `.ts` through the source loader below when the caller itself runs from source.
 */
export function startModuleWorker(name: string, from: string, options: WorkerOptions = {}): Worker {
  const fromSource = from.endsWith('.ts');
  const entry = new URL(`./${name}${fromSource ? '.ts' : '.js'}`, from);
  return new Worker(entry, fromSource ? { ...options, execArgv: ['--import', tsSourceLoaderImport()] } : options);
}

/**
 * Only for running from TypeScript sources (vitest): a worker thread started from a `.ts` entry needs a loader,
 * since Node 20 cannot strip types. Returns a `--import` value that registers module hooks resolving `./x.js` imports
 * to `./x.ts` and loading each `.ts` module as JavaScript: the build's own output (`dist/`, which `npm test` makes
 * first) while it is at least as new as the source, else the source transpiled with the project's `typescript` (a
 * dev dependency), imported only then. Loading and running the compiler in every worker took seconds per worker on
 * a busy 2-core machine. Built code (`dist/`) never calls this.
 */
function tsSourceLoaderImport(): string {
  const typescript = pathToFileURL(createRequire(import.meta.url).resolve('typescript')).href;
  // This file is src/lib/module-worker.ts; tsconfig.json builds src/ into dist/.
  const srcRoot = new URL('../', import.meta.url).href;
  const distRoot = new URL('../../dist/', import.meta.url).href;
  const hooks = `
import { readFile, stat } from 'node:fs/promises';
export async function resolve(specifier, context, next) {
  try { return await next(specifier, context); }
  catch (error) {
    if (specifier.endsWith('.js') && context.parentURL?.endsWith('.ts')) return next(specifier.slice(0, -3) + '.ts', context);
    throw error;
  }
}
async function built(url) {
  if (!url.startsWith(${JSON.stringify(srcRoot)})) return undefined;
  const output = new URL(${JSON.stringify(distRoot)} + url.slice(${srcRoot.length}, -3) + '.js');
  const [source, js] = await Promise.all([stat(new URL(url)), stat(output).catch(() => undefined)]);
  return js && js.mtimeMs >= source.mtimeMs ? readFile(output, 'utf8') : undefined;
}
async function transpiled(url) {
  const { default: ts } = await import(${JSON.stringify(typescript)});
  const options = { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 };
  return ts.transpileModule(await readFile(new URL(url), 'utf8'), { compilerOptions: options, fileName: url }).outputText;
}
export async function load(url, context, next) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return next(url, context);
  return { format: 'module', source: (await built(url)) ?? (await transpiled(url)), shortCircuit: true };
}`;
  const register = `import { register } from 'node:module'; register(${JSON.stringify(toDataUrl(hooks))});`;
  return toDataUrl(register);
}

function toDataUrl(code: string): string {
  return `data:text/javascript,${encodeURIComponent(code)}`;
}
