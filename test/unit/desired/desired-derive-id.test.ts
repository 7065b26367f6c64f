import { describe, expect, it } from 'vitest';
import { DASHBOARD_ID_NAMESPACE, deriveDashboardId, uuidV5 } from '../../../src/desired/derive-id.js';

const DNS_NAMESPACE = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';
const URL_NAMESPACE = '6ba7b811-9dad-11d1-80b4-00c04fd430c8';

describe('deriveDashboardId', () => {
  it('implements RFC 4122 version 5: the published www.example.com vector', () => {
    expect(uuidV5('www.example.com', DNS_NAMESPACE)).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });

  it('uses the documented namespace: v5 of dashcd:dashboard-file in the URL namespace', () => {
    expect(uuidV5('dashcd:dashboard-file', URL_NAMESPACE)).toBe(DASHBOARD_ID_NAMESPACE);
  });

  it('is the v5 UUID of the relative path, stable across calls, with version and variant bits set', () => {
    const id = deriveDashboardId('team/cpu.yaml');
    expect(id).toBe(uuidV5('team/cpu.yaml', DASHBOARD_ID_NAMESPACE));
    expect(id).toBe(deriveDashboardId('team/cpu.yaml'));
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('gives different ids to different paths, including a rename or a case change', () => {
    const ids = ['a.yaml', 'b.yaml', 'A.yaml', 'x/a.yaml', 'a.yml'].map(deriveDashboardId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('pins today\'s ids so a change of namespace or name encoding cannot slip through', () => {
    // Expected values from an independent implementation: Python's uuid.uuid5(UUID(DASHBOARD_ID_NAMESPACE), path).
    expect(deriveDashboardId('cpu.yaml')).toBe('e9b0cf89-f448-573e-8aed-164bb79aa8c7');
    expect(deriveDashboardId('team/cpu.yaml')).toBe('37c8a8fe-4f38-56ef-a0d9-489b8dae40b1');
    expect(deriveDashboardId('A.yaml')).toBe('5dc4e193-af19-54d3-bae1-b3732c62f767');
    expect(deriveDashboardId('ünï/cödé.yaml')).toBe('d380cb4c-d817-55df-b3ae-fc13ccc6a246');
  });
});
