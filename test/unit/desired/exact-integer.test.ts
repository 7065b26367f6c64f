import { beforeEach, describe, expect, it, vi } from 'vitest';

/** Loaded afresh for each test, so a mutation run counts the module's pattern as read by the tests that read it. */
let keepsIntegerText: typeof import('../../../src/desired/exact-integer.js').keepsIntegerText;
beforeEach(async () => {
  vi.resetModules();
  ({ keepsIntegerText } = await import('../../../src/desired/exact-integer.js'));
});

const read = (text: string): number => (text.startsWith('0o') ? parseInt(text.slice(2), 8) : Number(text));

describe('keepsIntegerText', () => {
  it('passes every integer a double holds exactly, in any form YAML writes it', () => {
    for (const text of ['0', '-0', '+7', '007', '9007199254740991', '-9007199254740991', '0x1FFFFFFFFFFFFF', '0o377777777777777777']) {
      expect(keepsIntegerText(text, read(text)), text).toBe(true);
    }
  });

  it('passes a larger integer whose digits JSON writes back as they are, with or without a sign or leading zeros', () => {
    for (const text of ['123456789012345680000', '-123456789012345680000', '+123456789012345680000', '000123456789012345680000', '9007199254740992', '0x20000000000000', '0o400000000000000000']) {
      expect(keepsIntegerText(text, read(text)), text).toBe(true);
    }
  });

  it('fails an integer whose digits would change on the way out', () => {
    for (const text of ['9007199254740993', '-9007199254740993', '1702373595732123456', '+1702373595732123456', '0001702373595732123456', '-0001702373595732123456', '1702373595732123456000', '1000000000000000000000', '0x20000000000001', '0o400000000000000001']) {
      expect(keepsIntegerText(text, read(text)), text).toBe(false);
    }
  });

  it('passes text that is no integer, whatever its value', () => {
    for (const [text, value] of [['1.5e300', 1.5e300], ['12345678901234567890.5', 12345678901234567890.5], ['1e21', 1e21], ['x', 2 ** 60], ['', 2 ** 60], ['x1702373595732123456', 2 ** 60], ['1702373595732123456x', 2 ** 60], ['-+1702373595732123456', 2 ** 60], ['0X20000000000001', 2 ** 53 + 2], ['0b11', 2 ** 60]] as const) {
      expect(keepsIntegerText(text, value), text).toBe(true);
    }
  });
});
