import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { MAIN_JS, runDashcdChild } from '../helpers/cli.js';

// What scripts/bundle.mjs promises the code that runs from the bundle: the files it looks for beside itself.
const BUNDLE = dirname(MAIN_JS);
const SRC = join(import.meta.dirname, '..', '..', 'src');
const temps: string[] = [];

afterAll(async () => {
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** The names every `startModuleWorker('<name>', import.meta.url)` in the sources starts. */
async function workerNames(): Promise<string[]> {
  const names = new Set<string>();
  for (const file of await readdir(SRC, { recursive: true })) {
    if (!file.endsWith('.ts')) continue;
    for (const [, name] of (await readFile(join(SRC, file), 'utf8')).matchAll(/startModuleWorker\('([^']+)'/g)) names.add(name as string);
  }
  return [...names].sort();
}

const importedChunks = (text: string): string[] => [...text.matchAll(/from\s*"\.\/(chunk-[^"]+\.js)"/g)].map((m) => m[1] as string);

/**
 * The compiled modules a bundle file loads before it runs: its own and those of every chunk it imports statically
 * (`import … from` and bare `import "…"`; an `import()` is not followed), as named by esbuild's `// dist/…` markers.
 */
async function staticallyLoaded(file: string): Promise<Set<string>> {
  const modules = new Set<string>();
  const seen = new Set<string>();
  const visit = async (name: string): Promise<void> => {
    if (seen.has(name)) return;
    seen.add(name);
    const text = await readFile(join(BUNDLE, name), 'utf8');
    for (const [, module] of text.matchAll(/^\/\/ (dist\/\S+\.js)$/gm)) modules.add(module as string);
    for (const [, chunk] of text.matchAll(/^import\s+(?:[^;]*?\s+from\s+)?"\.\/(chunk-[^"]+\.js)";/gms)) await visit(chunk as string);
  };
  await visit(file);
  return modules;
}

describe('the bundle dashcd runs (dist/bundle)', () => {
  it('keeps every file in one folder two levels below the package, so the code finds package.json as it does unbundled', async () => {
    const entries = await readdir(BUNDLE, { withFileTypes: true });
    expect(entries.filter((entry) => !entry.isFile()).map((entry) => entry.name)).toEqual([]);
    const manifest = JSON.parse(await readFile(join(BUNDLE, '..', '..', 'package.json'), 'utf8')) as { version: string; bin: { dashcd: string } };
    expect(join(BUNDLE, '..', '..', manifest.bin.dashcd)).toBe(MAIN_JS);
    const version = await runDashcdChild(['--version'], { cwd: BUNDLE });
    expect(version).toMatchObject({ code: 0, stdout: `dashcd ${manifest.version}\n` });
  });

  it('loads in the launcher only what main.ts loads before it relaunches a server, the rest behind import()', async () => {
    // The source-level rule is test/unit/cli/command-start-up.test.ts; this holds the bundler to it (one chunk for
    // everything would have every `dashcd serve` load the whole CLI twice, once in the launcher).
    expect([...(await staticallyLoaded('main.js'))].sort()).toEqual(['dist/cli/relaunch.js', 'dist/main.js', 'dist/server/server-node-options.js']);
  });

  it('has each worker thread the sources start beside the code that starts it, and each one answers a job', async () => {
    // A job each worker answers (a body that is not a dashboard, a file that is not one): the answer shows its
    // modules loaded, where 'online' comes before a missing module's error.
    const jobs: Record<string, { message: unknown; answered: (reply: Record<string, unknown>) => boolean }> = {
      'check-worker': { message: { batch: 7, sources: ['not: [a dashboard'] }, answered: (reply) => reply['batch'] === 7 },
      'dashboard-body-worker': { message: { seq: 7, bytes: new TextEncoder().encode('{}'), target: { mode: 'create' } }, answered: (reply) => reply['seq'] === 7 },
    };
    expect(await workerNames()).toEqual(Object.keys(jobs));
    for (const [name, job] of Object.entries(jobs)) {
      const worker = new Worker(pathToFileURL(join(BUNDLE, `${name}.js`)));
      const reply = await new Promise<Record<string, unknown>>((resolve) => {
        worker.once('message', resolve);
        worker.once('error', (error) => resolve({ error: error.message }));
        worker.postMessage(job.message);
      });
      await worker.terminate();
      expect(job.answered(reply), `${name}: ${JSON.stringify(reply).slice(0, 300)}`).toBe(true);
    }
  });

  it('keys the check cache on the bundled checker: a change in a chunk the checker imports gives another key', async () => {
    type KeyModule = { checkCodeKey(): Promise<Buffer> };
    const keyOf = async (bundle: string): Promise<Buffer> => ((await import(pathToFileURL(join(bundle, 'check-code-key.js')).href)) as KeyModule).checkCodeKey();
    const copyRoot = await mkdtemp(join(tmpdir(), 'dashcd-bundle-'));
    temps.push(copyRoot);
    const copy = join(copyRoot, 'dist', 'bundle');
    await cp(BUNDLE, copy, { recursive: true });
    const original = await keyOf(BUNDLE);
    expect(original).toHaveLength(32);
    // Another import of the same files gives the same key (it is a hash of them, not of the moment).
    await writeFile(join(copyRoot, 'package.json'), '{ "type": "module" }\n');
    expect((await keyOf(copy)).equals(original)).toBe(true);
    const changed = join(copyRoot, 'changed', 'bundle');
    await cp(BUNDLE, changed, { recursive: true });
    const chunk = importedChunks(await readFile(join(changed, 'check-source.js'), 'utf8'))[0];
    expect(chunk).toBeDefined();
    await writeFile(join(changed, chunk as string), `${await readFile(join(changed, chunk as string), 'utf8')}\n// a rule edited\n`);
    expect((await keyOf(changed)).equals(original)).toBe(false);
  });
});
