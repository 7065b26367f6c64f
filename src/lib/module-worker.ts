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
 * since Node 20 cannot strip types. Returns a `--import` value that registers module hooks transpiling `.ts` with
 * the project's own `typescript` (a dev dependency) and resolving `./x.js` imports to `./x.ts`. Built code
 * (`dist/`) never calls this.
 */
function tsSourceLoaderImport(): string {
  const typescript = pathToFileURL(createRequire(import.meta.url).resolve('typescript')).href;
  const hooks = `
import ts from ${JSON.stringify(typescript)};
import { readFile } from 'node:fs/promises';
export async function resolve(specifier, context, next) {
  try { return await next(specifier, context); }
  catch (error) {
    if (specifier.endsWith('.js') && context.parentURL?.endsWith('.ts')) return next(specifier.slice(0, -3) + '.ts', context);
    throw error;
  }
}
export async function load(url, context, next) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return next(url, context);
  const source = await readFile(new URL(url), 'utf8');
  const options = { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 };
  return { format: 'module', source: ts.transpileModule(source, { compilerOptions: options, fileName: url }).outputText, shortCircuit: true };
}`;
  const register = `import { register } from 'node:module'; register(${JSON.stringify(toDataUrl(hooks))});`;
  return toDataUrl(register);
}

function toDataUrl(code: string): string {
  return `data:text/javascript,${encodeURIComponent(code)}`;
}
