import { readFileSync } from 'node:fs';

/**
 * The version of this dashcd, from its package.json (two levels up from both `src/cli/` and `dist/cli/`), read only
 * when asked so no other command pays for it.
 */
export function dashcdVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof manifest.version === 'string' ? manifest.version : 'unknown';
}
