import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { transform } from 'esbuild';

/**
 * Emits bench/**\/*.ts as JavaScript under `outDir` without type-checking, beside links to the compiled `dist/` (as
 * `src/`), its bundle (as `bundle/`) and `node_modules/`, so `node <outDir>/bench/run.js` runs the harness against
 * the build `npm test` made.
 * Types of the bench are checked by `tsc -p tsconfig.test.json` (which includes bench/); this only strips them, with
 * esbuild (which `npm run build` bundles with): a few tens of milliseconds, where TypeScript's own transpileModule
 * took 1.7 s of CPU for each of the two tests that build the bench, and a full `tsc -p tsconfig.bench.json` most of
 * a minute on a busy 2-core machine.
 */
export async function transpileBench(repo: string, outDir: string): Promise<void> {
  const entries = await readdir(join(repo, 'bench'), { recursive: true, withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile() && entry.name.endsWith('.ts')).map((entry) => join(entry.parentPath, entry.name));
  await Promise.all(
    files.map(async (file) => {
      const rel = relative(repo, file);
      const { code } = await transform(await readFile(file, 'utf8'), { loader: 'ts', format: 'esm', target: 'es2022', sourcefile: rel });
      const out = join(outDir, rel.replace(/\.ts$/, '.js'));
      await mkdir(dirname(out), { recursive: true });
      await writeFile(out, code);
    }),
  );
  await symlink(join(repo, 'dist'), join(outDir, 'src'), 'dir');
  await symlink(join(repo, 'dist', 'bundle'), join(outDir, 'bundle'), 'dir');
  await symlink(join(repo, 'node_modules'), join(outDir, 'node_modules'), 'dir');
  // package.json's "type": "module" makes the emitted .js files ES modules.
  await writeFile(join(outDir, 'package.json'), '{ "type": "module" }\n');
}
