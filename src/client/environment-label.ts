/**
 * The environment an address names, for archive folders and log fields: `…/e/prod` → `prod`; a hosted address
 * `https://abc123.live.dynatrace.com` → `abc123`. Target URLs carry no credentials, so neither does the label.
 */
export function environmentLabel(baseUrl: string): string {
  const url = new URL(baseUrl);
  const match = /\/e\/([^/]+)/.exec(url.pathname);
  if (match?.[1]) return match[1];
  return url.hostname.split('.')[0] || url.hostname;
}
