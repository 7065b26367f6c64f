import { describe, expect, it } from 'vitest';
import { listenFailure } from '../../../src/cli/listen-failure.js';

const failed = (code: string): NodeJS.ErrnoException => Object.assign(new Error(`listen ${code}`), { code });

describe('listenFailure: a listen error that is the user\'s to fix, in a few words', () => {
  it('names a port in use, a privileged port and an address this machine lacks by their code', () => {
    for (const code of ['EADDRINUSE', 'EACCES', 'EADDRNOTAVAIL']) expect(listenFailure(failed(code))).toBe(code);
  });

  it('says a host name that does not resolve does not, whether the answer was final or not', () => {
    expect(listenFailure(failed('ENOTFOUND'))).toBe('ENOTFOUND: the host name does not resolve');
    expect(listenFailure(failed('EAI_AGAIN'))).toBe('EAI_AGAIN: the host name does not resolve');
  });

  it('says an address the system cannot bind as given (fe80::1 without its zone) is not one to listen on', () => {
    expect(listenFailure(failed('EINVAL'))).toBe('EINVAL: not an address this machine can listen on as given');
  });

  it('leaves anything else to be reported as the bug it is', () => {
    for (const error of [failed('EMFILE'), new Error('boom'), undefined, 'text']) expect(listenFailure(error)).toBeUndefined();
  });
});
