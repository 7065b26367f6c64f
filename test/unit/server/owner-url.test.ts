import { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import { isOwnListenerUrl } from '../../../src/server/owner-url.js';

describe('isOwnListenerUrl', () => {
  it('takes what a dashcd on this machine publishes: empty while starting, or its listener on a local IP', () => {
    for (const url of ['', 'http://127.0.0.1:8080', 'http://127.0.0.2:1', 'http://0.0.0.0:8080', 'http://[::]:8080', 'http://[::1]:9', 'http://127.0.0.1:80', 'http://127.0.0.1', 'http://127.0.0.1:8080/', 'http://127.0.0.1:65535']) {
      expect(isOwnListenerUrl(url), url).toBe(true);
    }
  });

  it('takes an address of one of this machine\'s interfaces (serve --host <its address>)', () => {
    const addresses = Object.values(networkInterfaces()).flatMap((entries) => entries ?? []);
    const outward = addresses.find((entry) => entry.family === 'IPv4' && !entry.internal);
    const v6 = addresses.find((entry) => entry.family === 'IPv6' && !entry.address.includes('%') && entry.address !== '::1');
    if (outward) expect(isOwnListenerUrl(`http://${outward.address}:8080`)).toBe(true);
    if (v6) expect(isOwnListenerUrl(`http://[${v6.address}]:8080`)).toBe(true);
    // A listener on an IPv4-mapped address reports it so (serve --host ::ffff:127.0.0.1), in either notation.
    for (const url of ['http://[::ffff:127.0.0.1]:8080', 'http://[::FFFF:7f00:1]:8080', 'http://[::ffff:0.0.0.0]:1']) expect(isOwnListenerUrl(url), url).toBe(true);
    // Not a link-local one, even this machine's, zoned or not: it names a host on one link only (fe80::1 is a Mac's
    // loopback and often its router), and serve refuses a zoned --host.
    const linkLocal = addresses.find((entry) => entry.family === 'IPv6' && entry.address.startsWith('fe80:'));
    if (linkLocal) {
      expect(isOwnListenerUrl(`http://[${linkLocal.address}]:8080`)).toBe(false);
      expect(isOwnListenerUrl(`http://[${linkLocal.address}%${linkLocal.scopeid ?? 0}]:8080`)).toBe(false);
    }
    if (outward) expect(isOwnListenerUrl(`http://[::ffff:${outward.address}]:8080`)).toBe(true);
    // Never vacuous: the loopback interface is always there.
    expect(addresses.some((entry) => entry.internal)).toBe(true);
  });

  it('refuses any other host, a name, another scheme, credentials, a path, a query or a fragment', () => {
    for (const url of [
      'http://attacker.example:1',
      'http://localhost:8080',
      'https://127.0.0.1:8080',
      'http://user@127.0.0.1:8080',
      'http://:pw@127.0.0.1:8080',
      'http://127.0.0.1:8080/x',
      'http://127.0.0.1:8080/?x',
      'http://127.0.0.1:8080/#x',
      'http://203.0.113.9:8080',
      'http://[2001:db8::1]:8080',
      'http://128.0.0.1:8080',
      'http://[::2]:8080',
      'http://[::ffff:203.0.113.9]:8080',
      'http://[::ffff:cb00:7109]:8080',
      'http://[fe80::dead:beef%eth0]:8080',
      'http://[fe80::1]:8080',
      'http://[FEBF::1]:8080',
      'http://[127.0.0.1]:8080',
      'http://127.0.0.1:65536',
      'http://127.0.0.1:8080//',
      'http://127.1:8080',
      'http://[::1]x:8080',
      'not a url',
      '127.0.0.1:8080',
    ]) {
      expect(isOwnListenerUrl(url), url).toBe(false);
    }
  });
});
