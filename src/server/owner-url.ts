import { isIPv4 } from 'node:net';
import { networkInterfaces } from 'node:os';

/**
 * Whether `url` is one a dashcd publishes in owner.json: its own listener's, `http://<IP literal>:<port>` (the port left out when it is 80), the IP
 * this machine's (loopback, any address, or an interface's), or empty while it starts. Other commands send the data
 * dir's admin key there; a committed owner.json naming its author's host must never count, wherever process
 * identities cannot tell it from a live owner's (macOS, Windows, a checkout under umask 077).
 */
export function isOwnListenerUrl(url: string): boolean {
  if (url === '') return true;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'http:' || parsed.username !== '' || parsed.password !== '' || parsed.pathname !== '/' || parsed.search !== '' || parsed.hash !== '') return false;
  const host = parsed.hostname.startsWith('[') ? parsed.hostname.slice(1, -1) : parsed.hostname;
  // Loopback beyond 127.0.0.1 and the any-address are not listed among the interfaces' addresses (::1 is).
  if (isIPv4(host) ? host === '0.0.0.0' || host.startsWith('127.') : host === '::') return true;
  return thisMachinesAddresses().has(host);
}

function thisMachinesAddresses(): Set<string> {
  const addresses = new Set<string>();
  for (const entries of Object.values(networkInterfaces())) for (const entry of entries ?? []) addresses.add(entry.address);
  return addresses;
}
