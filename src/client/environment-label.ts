import { isIP } from 'node:net';

/**
 * The environment an address names, for archive folders and log fields: `…/e/prod` → `prod`; a hosted address
 * `https://abc123.live.dynatrace.com` → `abc123`; a bare local address (`http://127.0.0.1:8080`) is a `dashcd serve`,
 * whose unprefixed paths are its default environment `local`. Target URLs carry no credentials, so neither does the
 * label.
 */
export function environmentLabel(baseUrl: string): string {
  const url = new URL(baseUrl);
  const match = /\/e\/([^/]+)/.exec(url.pathname);
  if (match?.[1]) return match[1];
  if (isIP(url.hostname.replace(/^\[|\]$/g, '')) !== 0 || url.hostname === 'localhost') return 'local';
  return url.hostname.split('.')[0] || url.hostname;
}
