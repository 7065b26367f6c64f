import { isIPv4, isIPv6 } from 'node:net';
import { networkInterfaces } from 'node:os';

/**
 * A listener URL as dashcd writes it: `http://` and an IP literal (IPv6 in brackets), an optional port and slash,
 * nothing else. No zone: serve refuses a zoned --host (no client takes such a URL), and a link-local address names a
 * host only on one link: `fe80::1` is a Mac's own loopback and, as often, the router on its network.
 */
const LISTENER_URL = /^http:\/\/(?:\[([0-9a-f:.]+)\]|([0-9.]+))(?::(\d{1,5}))?\/?$/i;
const LINK_LOCAL = /^fe[89ab][0-9a-f]:/i;
const IPV4_MAPPED_DOTTED = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;
const IPV4_MAPPED_HEX = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i;

/**
 * Whether `url` is one a dashcd publishes in owner.json: its own listener's, `http://<IP literal>:<port>`, the IP
 * this machine's (loopback, any address, or an interface's but link-local, IPv4-mapped ones included), or empty
 * while it starts.
 * Other commands send the data dir's admin key there; a committed owner.json naming its author's host must never
 * count, wherever process identities cannot tell it from a live owner's (macOS, Windows, a checkout under umask 077).
 */
export function isOwnListenerUrl(url: string): boolean {
  if (url === '') return true;
  const match = LISTENER_URL.exec(url);
  if (!match || Number(match[3] ?? 80) > 65535) return false;
  const [, v6, v4] = match;
  if (v4 !== undefined) return isIPv4(v4) && isLocalIPv4(v4);
  if (!isIPv6(v6!) || LINK_LOCAL.test(v6!)) return false;
  const mapped = ipv4Mapped(v6!);
  if (mapped !== undefined) return isLocalIPv4(mapped);
  return v6 === '::' || thisMachinesAddresses().has(v6!.toLowerCase());
}

function isLocalIPv4(address: string): boolean {
  // Loopback beyond 127.0.0.1 and the any-address are not listed among the interfaces' addresses.
  return address === '0.0.0.0' || address.startsWith('127.') || thisMachinesAddresses().has(address);
}

/** The IPv4 address inside `::ffff:a.b.c.d` (how a listener on it reports itself) or its hex form `::ffff:7f00:1`. */
function ipv4Mapped(v6: string): string | undefined {
  const dotted = IPV4_MAPPED_DOTTED.exec(v6);
  if (dotted) return dotted[1];
  const hex = IPV4_MAPPED_HEX.exec(v6);
  if (!hex) return undefined;
  const [high, low] = [parseInt(hex[1]!, 16), parseInt(hex[2]!, 16)];
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

function thisMachinesAddresses(): Set<string> {
  const addresses = new Set<string>();
  for (const entries of Object.values(networkInterfaces())) for (const entry of entries ?? []) addresses.add(entry.address.toLowerCase());
  return addresses;
}
