import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

/**
 * Emits bench/**\/*.ts as JavaScript under `outDir` without type-checking, beside links to the compiled `dist/` (as
 * `src/`), its bundle (as `bundle/`) and `node_modules/`, so `node <outDir>/bench/run.js` runs the harness against
 * the build `npm test` made.
 * Types of the bench are checked by `tsc -p tsconfig.test.json` (which includes bench/); this only transpiles, which
 * takes a second where a full `tsc -p tsconfig.bench.json` takes most of a minute on a busy 2-core machine.
 */
export async function transpileBench(repo: string, outDir: string): Promise<void> {
  const compilerOptions = { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 };
  const entries = await readdir(join(repo, 'bench'), { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = join(entry.parentPath, entry.name);
    const rel = relative(repo, file);
    const { outputText } = ts.transpileModule(await readFile(file, 'utf8'), { compilerOptions, fileName: rel });
    const out = join(outDir, rel.replace(/\.ts$/, '.js'));
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, outputText);
  }
  await symlink(join(repo, 'dist'), join(outDir, 'src'), 'dir');
  await symlink(join(repo, 'dist', 'bundle'), join(outDir, 'bundle'), 'dir');
  await symlink(join(repo, 'node_modules'), join(outDir, 'node_modules'), 'dir');
  // package.json's "type": "module" makes the emitted .js files ES modules.
  await writeFile(join(outDir, 'package.json'), '{ "type": "module" }\n');
}
