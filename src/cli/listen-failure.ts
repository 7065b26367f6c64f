import { UsageError } from './exit-codes.js';

/**
 * Why an address cannot be listened on, when that is the user's to fix (a port in use, a privileged port, an address
 * this machine does not have or cannot bind as given, a host name that does not resolve): the words for the command's one-line message.
 * Undefined for anything else, which is a bug to report with its stack.
 */
export function listenFailure(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') return code;
  // `fe80::1` without its zone, and other addresses the system cannot bind as given.
  if (code === 'EINVAL') return `${code}: not an address this machine can listen on as given`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `${code}: the host name does not resolve`;
  return undefined;
}

/**
 * A zoned address (`fe80::1%eth0`) can be listened on, but no client reaches the URL it would publish: the WHATWG
 * URL parser, which undici and browsers use, refuses the zone, so every command sent to the server failed.
 */
export function refuseZonedHost(host: string, flag: string): void {
  if (host.includes('%')) {
    throw new UsageError(`${flag} ${host}: an address with a zone (%…) cannot be reached by URL — listen on another of the interface's addresses, or on :: (every address)`);
  }
}
