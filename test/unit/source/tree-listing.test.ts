import { describe, expect, it } from 'vitest';
import { checkoutRefusal, MAX_DEPTH, MAX_FOLDERS, pathProblem, readTreeListing, type TreeFile } from '../../../src/source/tree-listing.js';
import { quoted } from '../../../src/lib/quoted.js';

const OID = 'a'.repeat(40);
const OID2 = 'b'.repeat(64);
const entry = (mode: string, type: string, size: string, path: string, oid = OID): string => `${mode} ${type} ${oid} ${size.padStart(7)}\t${path}\0`;

describe('readTreeListing', () => {
  it('reads blobs with their size (a symlink is one, its target its content), and leaves submodules out', () => {
    const output = entry('100644', 'blob', '12', 'dashboards/a.yaml') + entry('100755', 'blob', '3', 'dashboards/run me.yaml', OID2) + entry('120000', 'blob', '11', 'dashboards/link.yaml') + entry('160000', 'commit', '-', 'dashboards/sub');
    expect(readTreeListing(output)).toEqual({
      files: [
        { path: 'dashboards/a.yaml', oid: OID, size: 12 },
        { path: 'dashboards/run me.yaml', oid: OID2, size: 3 },
        { path: 'dashboards/link.yaml', oid: OID, size: 11 },
      ],
    });
  });

  it('takes a path with a tab or a line break in it as it is, and an empty listing as no files', () => {
    expect(readTreeListing(entry('100644', 'blob', '1', 'dashboards/a\tb\nc.yaml'))).toEqual({ files: [{ path: 'dashboards/a\tb\nc.yaml', oid: OID, size: 1 }] });
    expect(readTreeListing('')).toEqual({ files: [] });
  });

  it('refuses a file and a folder of one name (a crafted tree), whichever comes first', () => {
    const clash = 'the commit holds "dashboards/a" as a file and as a folder';
    expect(readTreeListing(entry('100644', 'blob', '1', 'dashboards/a') + entry('100644', 'blob', '1', 'dashboards/a/b.yaml'))).toEqual({ refused: clash });
    expect(readTreeListing(entry('100644', 'blob', '1', 'dashboards/a/b.yaml') + entry('120000', 'blob', '1', 'dashboards/a'))).toEqual({ refused: clash });
    // A name that only starts like a folder is no clash.
    expect(readTreeListing(entry('100644', 'blob', '1', 'dashboards/a.yaml') + entry('100644', 'blob', '1', 'dashboards/a/b.yaml'))).toMatchObject({ files: [{}, {}] });
  });

  it('refuses the whole commit for one path no checkout writes, and a line it cannot read', () => {
    expect(readTreeListing(entry('100644', 'blob', '1', 'dashboards/a.yaml') + entry('100644', 'blob', '1', 'dashboards/../../evil'))).toEqual({ refused: 'the commit holds a path no checkout writes: "dashboards/../../evil"' });
    expect(readTreeListing('garbage\0')).toEqual({ refused: 'git ls-tree printed a line dashcd cannot read: "garbage"' });
  });
});

describe('folders a checkout makes', () => {
  it('refuses a file more than MAX_DEPTH folders deep, and takes one exactly that deep (a tiny push named 200 files 500 folders deep)', () => {
    const deep = (levels: number): string => `${Array.from({ length: levels }, () => 'a').join('/')}/f.yaml`;
    expect(pathProblem(deep(MAX_DEPTH))).toBeUndefined();
    expect(pathProblem(deep(MAX_DEPTH + 1))).toMatch(new RegExp(`^the commit holds a file more than ${MAX_DEPTH} folders deep \\(from the repository's root\\), deeper than a checkout makes: "a/a/`));
  });

  it('refuses more than MAX_FOLDERS folders, and takes that many', () => {
    const files = (folders: number): string => Array.from({ length: folders }, (_, i) => entry('100644', 'blob', '1', `dashboards/d${i}/f.yaml`)).join('');
    // `dashboards` itself is one of them.
    expect(readTreeListing(files(MAX_FOLDERS - 1))).toMatchObject({ files: expect.any(Array) as unknown });
    expect(readTreeListing(files(MAX_FOLDERS))).toEqual({ refused: `the commit's dashboards folder and the folders above it make more than ${MAX_FOLDERS.toLocaleString('en-US')} folders, over what a checkout makes` });
  });
});

describe('pathProblem', () => {
  it('takes ordinary paths, dots inside names, and a name of exactly 255 bytes', () => {
    for (const path of ['a.yaml', 'dashboards/team/a.yaml', 'dashboards/.hidden.yaml', 'dashboards/a..b.yaml', `d/${'é'.repeat(127)}x`]) expect(pathProblem(path), path).toBeUndefined();
  });

  it('refuses empty, dot and dot-dot components and a .git of any case: a written .git folder would be git settings', () => {
    for (const path of ['', '/abs', 'a//b', './a', 'a/./b', '../a', 'a/..', '.git/config', 'dashboards/.GIT/hooks/x', 'a/.Git', 'a\0b', 'a\\..\\..\\evil.yaml', 'c:evil.yaml']) {
      expect(pathProblem(path), JSON.stringify(path)).toBe(`the commit holds a path no checkout writes: ${JSON.stringify(path)}`);
    }
  });

  it('refuses a whole path over 1,024 bytes, each name under 255 (18 folders of 250 bytes could not be made)', () => {
    const folders = (count: number): string => Array.from({ length: count }, () => 'n'.repeat(250)).join('/');
    expect(pathProblem(`${folders(4)}/${'x'.repeat(20)}`)).toBeUndefined();
    expect(pathProblem(`${folders(5)}/x`)).toBe(`the commit holds a path longer than 1024 bytes: ${quoted(`${folders(5)}/x`)}`);
    expect(quoted(`${folders(5)}/x`)).toMatch(/^"n{119}… \(1,258 characters\)$/);
  });

  it('refuses a name over 255 bytes, counting bytes, not characters', () => {
    expect(pathProblem(`d/${'é'.repeat(128)}`)).toMatch(/^the commit holds a file name longer than 255 bytes, which no file system here can create: "d\/éé/);
    expect(pathProblem(`${'a'.repeat(256)}/b`)).toMatch(/longer than 255 bytes/);
    expect(pathProblem(`d/${'a'.repeat(300)}`)).toBe(`the commit holds a file name longer than 255 bytes, which no file system here can create: "d/${'a'.repeat(117)}… (304 characters)`);
  });
});

describe('checkoutRefusal', () => {
  const file = (size: number, i = 0): TreeFile => ({ path: `d/${i}.yaml`, oid: OID, size });
  const limits = { maxFiles: 3, maxBytes: 100, largestWritten: 40 };

  it('lets files within both limits through, the limits themselves included', () => {
    expect(checkoutRefusal([file(40, 1), file(40, 2), file(20, 3)], limits)).toBeUndefined();
    expect(checkoutRefusal([], limits)).toBeUndefined();
  });

  it('refuses more files than a checkout takes', () => {
    expect(checkoutRefusal([file(1, 1), file(1, 2), file(1, 3), file(1, 4)], limits)).toBe("the commit's dashboards folder holds 4 files, over the 3 a checkout takes");
  });

  it('refuses more bytes than a checkout writes, counting no file too large to be written', () => {
    expect(checkoutRefusal([file(40, 1), file(40, 2), file(21, 3)], limits)).toBe("the commit's dashboards folder holds 0 MiB, over the 0 MiB a checkout takes");
    expect(checkoutRefusal([file(10_000_000, 1), file(10_000_000, 2), file(40, 3)], limits)).toBeUndefined();
    expect(checkoutRefusal([file(3 * 1024 * 1024, 1)], { maxFiles: 9, maxBytes: 2 * 1024 * 1024, largestWritten: 4 * 1024 * 1024 })).toBe("the commit's dashboards folder holds 3 MiB, over the 2 MiB a checkout takes");
  });
});
