import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** semver (a dev dependency without types of its own): the two calls used here. */
const semver = createRequire(import.meta.url)('semver') as { minVersion(range: string): { version: string } | null; satisfies(version: string, range: string): boolean };
const repo = join(import.meta.dirname, '..', '..');
const json = async (file: string): Promise<Record<string, unknown>> => JSON.parse(await readFile(join(repo, file), 'utf8')) as Record<string, unknown>;

describe('package-lock.json', () => {
  // `npm install` rewrites a lockfile whose root entry disagrees with package.json: a newcomer's first command left
  // the checkout dirty (the lockfile still named the bin dist/main.js after it moved to dist/bundle/main.js).
  it('records the root package exactly as package.json declares it, so npm install leaves it unchanged', async () => {
    const manifest = await json('package.json');
    const lock = await json('package-lock.json');
    const root = (lock['packages'] as Record<string, Record<string, unknown>>)[''];
    for (const field of ['name', 'version', 'license', 'bin', 'engines', 'dependencies', 'devDependencies']) {
      expect(root?.[field], field).toEqual(manifest[field]);
    }
    expect([lock['name'], lock['version']]).toEqual([manifest['name'], manifest['version']]);
  });

  // "Node.js ≥ 20.19 is all they need": a dependency that wants more makes npm install warn (EBADENGINE), as
  // @sparticuz/chromium 153 did (^22.17.0 || >=24.0.0), and may not run on the Node the README promises.
  it('installs nothing that asks for a newer Node than package.json’s engines promise', async () => {
    const manifest = await json('package.json');
    const oldest = semver.minVersion((manifest['engines'] as { node: string }).node)?.version ?? '';
    expect(oldest).toBe('20.19.0');
    const packages = (await json('package-lock.json'))['packages'] as Record<string, { engines?: unknown }>;
    const demanding = Object.entries(packages)
      .map(([path, entry]) => [path, (entry.engines as { node?: unknown } | undefined)?.node] as const)
      .filter((pair): pair is readonly [string, string] => typeof pair[1] === 'string' && !semver.satisfies(oldest, pair[1]));
    expect(demanding).toEqual([]);
    // The check reads what it should: the browser package states an engines range.
    expect((packages['node_modules/@sparticuz/chromium']?.engines as { node?: string } | undefined)?.node).toBeTypeOf('string');
  });
});
