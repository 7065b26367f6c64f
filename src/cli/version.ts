import { readFileSync } from 'node:fs';

/**
 * The version of this dashcd, from its package.json (two levels up from `src/cli/`, `dist/cli/` and the bundle's
 * `dist/bundle/`), read only when asked so no other command pays for it.
 */
export function dashcdVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof manifest.version === 'string' ? manifest.version : 'unknown';
}
