import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DashboardId, parseDashboardId } from '../../../src/schema/ids.js';

describe('dashboard ids', () => {
  it('parseDashboardId agrees with the DashboardId schema on every input', () => {
    const uuidish = fc.uuid().map((u) => (Math.random() < 0.5 ? u.toUpperCase() : u));
    fc.assert(
      fc.property(fc.oneof(uuidish, fc.string(), fc.constantFrom('../x', '%2e%2e', '12345678-1111-4444-8888-123456789012', `${'a'.repeat(8)}-aaaa-aaaa-aaaa-${'a'.repeat(12)}\n`)), (raw) => {
        const schema = DashboardId.safeParse(raw);
        expect(parseDashboardId(raw)).toBe(schema.success ? schema.data : undefined);
      }),
    );
  });

  it('never lets path characters through', () => {
    for (const raw of ['../etc/passwd', '..%2f', 'a/b', '.', '', 'x'.repeat(10_000)]) expect(parseDashboardId(raw)).toBeUndefined();
  });
});
