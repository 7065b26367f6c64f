import { mkdir, open, rename } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { fileSystemFailure } from '../../../src/lib/file-system-failure.js';

const thrown = (work: () => Promise<unknown>): Promise<unknown> => work().then(() => undefined, (error: unknown) => error);

describe('fileSystemFailure', () => {
  it('names what could not be done, to which path, and why, from a real refusal', async () => {
    expect(fileSystemFailure(await thrown(() => mkdir('/proc/dashcd-nope')))).toBe('cannot create the folder /proc/dashcd-nope: no such file or directory (ENOENT)');
    expect(fileSystemFailure(await thrown(() => open('/dashcd-missing/a', 'r')))).toBe('cannot open /dashcd-missing/a: no such file or directory (ENOENT)');
    expect(fileSystemFailure(await thrown(() => rename('/dashcd-missing-a', '/dashcd-missing-b')))).toBe('cannot rename /dashcd-missing-a: no such file or directory (ENOENT)');
  });

  it('says each refusal in Node\'s words, and the call\'s own name when it has no wording', () => {
    expect(fileSystemFailure({ code: 'EROFS', syscall: 'mkdir', path: '/ro/x', message: 'other words' })).toBe('cannot create the folder /ro/x: read-only file system (EROFS)');
    expect(fileSystemFailure({ code: 'EACCES', syscall: 'utime', path: '/x' })).toBe('cannot utime /x: permission denied (EACCES)');
    expect(fileSystemFailure({ code: 'EACCES', syscall: 'toString', path: '/x' })).toBe('cannot toString /x: permission denied (EACCES)');
    for (const [code, reason] of [['EPERM', 'operation not permitted'], ['ENOTDIR', 'not a directory'], ['EISDIR', 'is a directory'], ['EEXIST', 'file already exists'], ['ENAMETOOLONG', 'name too long'], ['ELOOP', 'too many symbolic links'], ['ENOENT', 'no such file or directory']]) {
      expect(fileSystemFailure({ code, syscall: 'open', path: '/p' })).toBe(`cannot open /p: ${reason} (${code})`);
    }
    for (const [syscall, action] of [['scandir', 'list the folder'], ['unlink', 'delete'], ['rmdir', 'delete the folder'], ['stat', 'read'], ['lstat', 'read'], ['chmod', 'change the mode of']]) {
      expect(fileSystemFailure({ code: 'EACCES', syscall, path: '/p' })).toBe(`cannot ${action} /p: permission denied (EACCES)`);
    }
  });

  it('leaves everything else to the unexpected-error path: other codes, no path, no call, not an object', () => {
    expect(fileSystemFailure({ code: 'EIO', syscall: 'write', path: '/x' })).toBeUndefined();
    expect(fileSystemFailure({ code: 'ENOENT', syscall: 'open' })).toBeUndefined();
    expect(fileSystemFailure({ code: 'ENOENT', path: '/x' })).toBeUndefined();
    expect(fileSystemFailure({ syscall: 'open', path: '/x' })).toBeUndefined();
    expect(fileSystemFailure({ code: 'toString', syscall: 'open', path: '/x' })).toBeUndefined();
    expect(fileSystemFailure(new TypeError('x'))).toBeUndefined();
    expect(fileSystemFailure(null)).toBeUndefined();
    expect(fileSystemFailure(undefined)).toBeUndefined();
    expect(fileSystemFailure('ENOENT')).toBeUndefined();
  });
});
