// Bundles the compiled CLI (tsc's output) into a few files: `node <out>/main.js` is what `dashcd` runs.
//
// Why: Node 20 resolves, reads and compiles each ES module on its own, and a command loads 90–190 of them; a bundle
// of the same code starts a command ~70 ms sooner and `dashcd serve` ~90 ms sooner (measured on the 2-core machine:
// `serve` over a million events 365 vs 455 ms median of 7, the launcher's Node start included; docs/benchmarks.md).
//
// Usage: node scripts/bundle.mjs [compiled-src-dir] [out-dir]   (defaults: dist, dist/bundle)
//
// The layout is what the code expects of itself at run time:
// - every file sits directly in out-dir, two levels below the package root: `version.ts` reads
//   `../../package.json` from its own URL;
// - the worker threads' modules are entry points named as in the sources, beside the code that starts them
//   (`startModuleWorker(name, import.meta.url)` looks for `<name>.js` beside the caller);
// - `check-source.js` is an entry point too: the check cache keys its entries on that module and everything it
//   imports (check-code-key.ts), here the chunks holding that code and the packages bundled into them; and
//   `check-code-key.js`, so a test can read the key a bundled run writes under;
// - dynamic imports stay separate chunks, so a command still loads only the code it runs.
import { build } from 'esbuild';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';

const [from = 'dist', out = join(from, 'bundle')] = process.argv.slice(2);
const ENTRIES = ['main', 'server/routes/dashboard-body-worker', 'desired/check-worker', 'desired/check-source', 'desired/check-code-key'];

// Old chunks have other names: a bundle left over from the last build would sit beside this one, unread but shipped.
await rm(out, { recursive: true, force: true });
await build({
  entryPoints: ENTRIES.map((entry) => resolve(from, `${entry}.js`)),
  entryNames: '[name]',
  chunkNames: 'chunk-[hash]',
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // A native addon, and the compiler only source runs load (module-worker.ts): both are found in node_modules.
  external: ['@resvg/resvg-js', 'typescript'],
  // The CommonJS packages bundled in (pino, undici, yaml) call require() for Node's own modules.
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
  sourcemap: 'linked',
  legalComments: 'linked',
  logLevel: 'warning',
});
