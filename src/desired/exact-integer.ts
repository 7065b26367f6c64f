/**
 * Whether the integer a file writes (`written`, exactly) reaches the API as written when read as the double `value`:
 * JSON sends `String(value)` ("1702373595732123400", "1e+21"), and a reader taking that text exactly must find
 * `written`. Every integer a double holds exactly passes, and so does a larger one the double holds as written
 * (123456789012345680000, or 10^21, sent as 1e+21); 1702373595732123456 does not.
 */
export function sendsIntegerAsWritten(written: bigint, value: number): boolean {
  return Number.isSafeInteger(value) || exactDecimal(String(value)) === written;
}

/**
 * JavaScript's text of a double beyond 2^53, as the integer it writes; undefined for Infinity. Such a double is an
 * integer: its text has plain digits below 10^21, and above, at most 16 after the point and an exponent of 21 or more.
 */
function exactDecimal(text: string): bigint | undefined {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e\+(\d+))?$/.exec(text);
  if (match === null) return undefined;
  const [, sign, whole = '', fraction = '', exponent = '0'] = match;
  const magnitude = BigInt(whole + fraction) * 10n ** BigInt(Number(exponent) - fraction.length);
  return sign === '-' ? -magnitude : magnitude;
}
