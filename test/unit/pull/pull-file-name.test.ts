import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freeFileName, idBlock } from '../../../src/pull/file-name.js';
import { answeredAnotherId } from '../../../src/pull/pull-items.js';

describe('idBlock: the part of a target-given id a file name may carry', () => {
  it('keeps the first eight characters of a real id', () => {
    expect(idBlock('3c9d1e2f-1111-4a2b-8c3d-4e5f6a7b8c9d')).toBe('3c9d1e2f');
    expect(idBlock('My_doc-Id42')).toBe('My_doc-I');
    expect(idBlock('abc')).toBe('abc');
  });

  it('drops separators, dots and anything else before taking eight, and is never empty', () => {
    expect(idBlock('/../../x')).toBe('x');
    expect(idBlock('..\\..\\evil/name')).toBe('evilname');
    expect(idBlock('a\u0000b:c*d?e')).toBe('abcde');
    expect(idBlock('../..')).toBe('id');
    expect(idBlock('')).toBe('id');
  });
});

describe('freeFileName', () => {
  it('never names a file as the project config: a document named dashcd (or .dashcd) got dashcd.yaml', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dashcd-file-name-'));
    try {
      for (const name of ['dashcd', '.dashcd', 'DashCD']) expect(await freeFileName(dir, { name, id: 'abc-123' }, new Set()), name).toBe(join(dir, 'dashcd-abc-123.yaml'));
      expect(await freeFileName(dir, { name: 'dashcd prod', id: 'x' }, new Set())).toBe(join(dir, 'dashcd-prod.yaml'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('names a taken name by a cleaned id block, inside the folder', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dashcd-file-name-'));
    try {
      await writeFile(join(dir, 'same.yaml'), '');
      expect(await freeFileName(dir, { name: 'Same', id: '../../evil' }, new Set())).toBe(join(dir, 'same-evil.yaml'));
      expect(await freeFileName(dir, { name: 'Same', id: '/..' }, new Set([join(dir, 'same-id.yaml')]))).toBe(join(dir, 'same-id-2.yaml'));
    } finally {
      await rm(dir, { recursive: true });
    }
  });
});

describe('freeFileName: a name a person recognises', () => {
  it('is the name in lower case, words joined by one dash, accents gone, at most 80 characters, else "dashboard"', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dashcd-file-name-'));
    const named = async (name: string): Promise<string> => (await freeFileName(dir, { name, id: 'id-1' }, new Set())).slice(dir.length + 1);
    try {
      expect(await named('CPU & memory (prod)')).toBe('cpu-memory-prod.yaml');
      expect(await named('Überblick – Café')).toBe('uberblick-cafe.yaml');
      expect(await named('--Edge  --  Case--')).toBe('edge-case.yaml');
      // Cut at 80, then no dash left hanging at the end.
      expect(await named(`${'a'.repeat(79)} b ${'c'.repeat(30)}`)).toBe(`${'a'.repeat(79)}.yaml`);
      expect(await named(`${'a'.repeat(78)} b ${'c'.repeat(30)}`)).toBe(`${'a'.repeat(78)}-b.yaml`);
      expect(await named('€€€')).toBe('dashboard.yaml');
      expect(await named('')).toBe('dashboard.yaml');
    } finally {
      await rm(dir, { recursive: true });
    }
  });

  it('counts up past the id block when that is taken too', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dashcd-file-name-'));
    try {
      const taken = new Set([join(dir, 'a.yaml'), join(dir, 'a-abc.yaml'), join(dir, 'a-abc-2.yaml')]);
      expect(await freeFileName(dir, { name: 'A', id: 'abc' }, taken)).toBe(join(dir, 'a-abc-3.yaml'));
    } finally {
      await rm(dir, { recursive: true });
    }
  });
});

describe('answeredAnotherId', () => {
  it('accepts the id asked for, and refuses another, quoted and shortened', () => {
    expect(answeredAnotherId('d1', 'd1')).toBeUndefined();
    // Ids match case-blind, as plans match them: a UUID asked for in upper case is answered in lower case.
    expect(answeredAnotherId('20A64C43-3E58-5E9D-9358-6CBB0661CDBA', '20a64c43-3e58-5e9d-9358-6cbb0661cdba')).toBeUndefined();
    expect(answeredAnotherId('d1', '/../../x')).toEqual({ refused: 'the target answered "/../../x" when asked for this id: not written' });
    expect(answeredAnotherId('d1', 'x'.repeat(300))).toEqual({ refused: `the target answered "${'x'.repeat(100)}" when asked for this id: not written` });
  });
});
