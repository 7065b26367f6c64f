import { beforeEach, describe, expect, it, vi } from 'vitest';

/** Loaded afresh for each test, so a mutation run counts the module's pattern as read by the tests that read it. */
let sendsIntegerAsWritten: typeof import('../../../src/desired/exact-integer.js').sendsIntegerAsWritten;
beforeEach(async () => {
  vi.resetModules();
  ({ sendsIntegerAsWritten } = await import('../../../src/desired/exact-integer.js'));
});

/** As the fast path reads a decimal, 0o or 0x text: exactly, and as a double. */
const both = (text: string): [bigint, number] => [BigInt(text), text.startsWith('0o') ? parseInt(text.slice(2), 8) : Number(text)];

describe('sendsIntegerAsWritten', () => {
  it('passes every integer a double holds exactly', () => {
    for (const text of ['0', '-0', '+7', '007', '9007199254740991', '-9007199254740991', '0x1FFFFFFFFFFFFF', '0o377777777777777777']) {
      expect(sendsIntegerAsWritten(...both(text)), text).toBe(true);
    }
  });

  it('passes a larger integer whose digits JSON writes back as the same integer, with an exponent too', () => {
    for (const text of ['123456789012345680000', '-123456789012345680000', '+123456789012345680000', '000123456789012345680000', '9007199254740992', '0x20000000000000', '0o400000000000000000', '1000000000000000000000', '-1000000000000000000000', '1234567890123456800000000']) {
      expect(sendsIntegerAsWritten(...both(text)), text).toBe(true);
    }
  });

  it('fails an integer whose digits would change on the way out', () => {
    for (const text of ['9007199254740993', '-9007199254740993', '1702373595732123456', '+1702373595732123456', '-0001702373595732123456', '1702373595732123456000', '1000000000000000000001', '1234567890123456789012345', '0x20000000000001', '0o400000000000000001']) {
      expect(sendsIntegerAsWritten(...both(text)), text).toBe(false);
    }
  });

  it('fails an integer too large for a double at all (read as Infinity, sent as null)', () => {
    expect(sendsIntegerAsWritten(10n ** 400n, Number('1' + '0'.repeat(400)))).toBe(false);
    expect(sendsIntegerAsWritten(-(10n ** 400n), -Infinity)).toBe(false);
  });

  it('compares the sign: a value read with the other sign is no match', () => {
    expect(sendsIntegerAsWritten(1702373595732123400n, 1702373595732123400)).toBe(true);
    expect(sendsIntegerAsWritten(-1702373595732123400n, 1702373595732123400)).toBe(false);
    expect(sendsIntegerAsWritten(1702373595732123400n, -1702373595732123400)).toBe(false);
  });
});
