import { describe, expect, it } from 'vitest';
import { deriveDocumentId } from '../../../src/desired/document-id.js';
import { CustomDocumentId, isUuid } from '../../../src/schema/documents.js';

/** What the Document service accepts as a client-chosen id (src/schema/documents.ts). */
function accepted(id: string): boolean {
  return CustomDocumentId.safeParse(id).success;
}

describe('deriveDocumentId', () => {
  it('is the path as a slug, then 13 hex digits of its SHA-256 (pinned: computed independently with Python hashlib)', () => {
    expect(deriveDocumentId('team/api.yaml')).toBe('team-api-f42618a92b17a');
    expect(deriveDocumentId('team/api.yaml')).toBe(deriveDocumentId('team/api.yaml'));
  });

  it('drops accents and the extension, lower-cases, and joins every other run of characters with one dash', () => {
    expect(deriveDocumentId('Équipe/Überblick – CPU.yaml')).toBe('equipe-uberblick-cpu-3d1a016a15b03');
    expect(deriveDocumentId('ops/v1.2/cpu.json')).toMatch(/^ops-v1-2-cpu-[0-9a-f]{13}$/);
    expect(deriveDocumentId('_draft_.yml')).toMatch(/^draft-[0-9a-f]{13}$/);
  });

  it('names a path the slug cannot spell (another script) "document", kept apart by the hash', () => {
    const a = deriveDocumentId('仪表板.yaml');
    const b = deriveDocumentId('ダッシュボード.yaml');
    expect(a).toMatch(/^document-[0-9a-f]{13}$/);
    expect(b).toMatch(/^document-[0-9a-f]{13}$/);
    expect(a).not.toBe(b);
    expect(accepted(a)).toBe(true);
  });

  it('gives different ids to paths whose slugs collide: folders, dashes, case, extension', () => {
    const paths = ['team/api.yaml', 'team-api.yaml', 'Team/API.yaml', 'team/api.json', 'team/api.yml', 'team_api.yaml', 'team/api'];
    const ids = paths.map(deriveDocumentId);
    expect(new Set(ids.map((id) => id.replace(/-[0-9a-f]{13}$/, ''))).size).toBe(1);
    expect(new Set(ids).size).toBe(paths.length);
  });

  it('stays within 100 characters for long paths, ending the slug without a dash, and keeps long paths apart', () => {
    const deep = `${'very-long-folder-name/'.repeat(10)}dashboard.yaml`;
    const id = deriveDocumentId(deep);
    expect(id.length).toBeLessThanOrEqual(100);
    expect(id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*-[0-9a-f]{13}$/);
    expect(id.slice(0, -14)).toBe('very-long-folder-name-'.repeat(4).slice(0, 86).replace(/-+$/, ''));
    expect(deriveDocumentId(deep.replace('dashboard', 'other'))).not.toBe(id);
    const exact = `${'a'.repeat(86)}.yaml`;
    expect(deriveDocumentId(exact)).toHaveLength(100);
    expect(deriveDocumentId(`${'a'.repeat(87)}.yaml`)).toHaveLength(100);
  });

  it('is never a UUID, even for a path that spells one, and is always an id the service accepts', () => {
    const uuidLike = ['deadbeef/dead/beef/dead.yaml', '01234567-89ab-cdef-0123-456789abcdef.yaml', 'a.yaml', '', '.yaml', '-/-.yaml'];
    for (const path of uuidLike) {
      const id = deriveDocumentId(path);
      expect(isUuid(id), id).toBe(false);
      expect(accepted(id), id).toBe(true);
    }
    expect(deriveDocumentId('01234567-89ab-cdef-0123-456789abcdef.yaml')).toMatch(/^01234567-89ab-cdef-0123-456789abcdef-[0-9a-f]{13}$/);
  });
});
