/** An integer as YAML and JSON write it: decimal, or YAML's 0o and 0x forms. */
const INTEGER_TEXT = /^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$/;

/**
 * Whether the integer written as `text` reaches the API as written, read as `value` (a double, as JavaScript reads
 * numbers): a decimal one when JSON writes `value` with the same digits (so 123456789012345680000, which a double
 * holds as written, passes), a 0x or 0o one when `value` is the same integer. Text that is no integer passes.
 */
export function keepsIntegerText(text: string, value: number): boolean {
  if (Number.isSafeInteger(value) || !INTEGER_TEXT.test(text)) return true;
  if (text.startsWith('0o') || text.startsWith('0x')) return Number.isInteger(value) && BigInt(text) === BigInt(value);
  // Beyond 2^53 the digits are not all zeros: no "-0" to mind.
  const digits = text.replace(/^[-+]?0*/, '');
  return String(value) === `${text.startsWith('-') ? '-' : ''}${digits}`;
}
