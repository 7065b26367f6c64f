import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isCode } from '../lib/fs-errors.js';

/**
 * What a cached file check is only valid for: the code that made it. SHA-256 over the text of every module the
 * checks load (check-source.ts and everything it imports, followed import by import) and the name and version of
 * every package they import (run from the bundle, the packages are part of the chunks' text). A new dashcd version,
 * a local edit of a rule, or `npm update` of zod or yaml each give another key, and the cache written before reads as
 * empty; an edit elsewhere (the plan, the server) does not.
 * Computed once per process: ~60 small files.
 */
let computed: Promise<Buffer> | undefined;

export function checkCodeKey(): Promise<Buffer> {
  computed ??= keyFrom(fileURLToPath(new URL('./check-source.js', import.meta.url)));
  return computed;
}

/** Static and dynamic imports with a literal specifier: what the built modules (and the sources) use. */
const IMPORTS = /\b(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g;

async function keyFrom(entry: string): Promise<Buffer> {
  const hash = createHash('sha256');
  const seen = new Set<string>();
  const packages = new Set<string>();
  const queue = [entry];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const { path, text } = await readModule(file);
    hash.update(`${path.slice(dirname(entry).length)}\0${text}\0`);
    for (const [, specifier] of text.matchAll(IMPORTS)) {
      if (specifier === undefined || specifier.startsWith('node:')) continue;
      if (specifier.startsWith('.')) queue.push(join(dirname(file), specifier));
      else packages.add(packageName(specifier));
    }
  }
  for (const name of [...packages].sort()) hash.update(`${name}@${await packageVersion(name, dirname(entry))}\0`);
  return hash.digest();
}

/** A module as built (`.js`), or its source when running from the sources (tests: `./x.js` names `./x.ts`). */
async function readModule(file: string): Promise<{ path: string; text: string }> {
  try {
    return { path: file, text: await readFile(file, 'utf8') };
  } catch (error) {
    if (!isCode(error, 'ENOENT') || !file.endsWith('.js')) throw error;
    const source = file.replace(/\.js$/, '.ts');
    return { path: source, text: await readFile(source, 'utf8') };
  }
}

/** `zod/v4/core` → `zod`; `@scope/pkg/x` → `@scope/pkg`. */
function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

/** The installed version, found as Node finds the package: `node_modules/<name>` in this folder or one above. */
async function packageVersion(name: string, from: string): Promise<string> {
  for (let dir = from; ; dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(await readFile(join(dir, 'node_modules', name, 'package.json'), 'utf8')) as { version?: unknown };
      return String(manifest.version);
    } catch (error) {
      if (!isCode(error, 'ENOENT') && !isCode(error, 'ENOTDIR')) throw error;
    }
    if (dirname(dir) === dir) return 'not found';
  }
}
