import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

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
});
