import { hash, randomBytes } from 'node:crypto';

/** Classic API tokens of the real service: `dt0c01.<24-char public id>.<64-char secret>`. */
export const TOKEN_PREFIX = 'dt0c01';
export const PUBLIC_ID_LENGTH = 24;
export const SECRET_LENGTH = 64;
export const TOKEN_LENGTH = TOKEN_PREFIX.length + 1 + PUBLIC_ID_LENGTH + 1 + SECRET_LENGTH;

/** The base32 alphabet; real tokens use only `A–Z` and `2–7` in both parts. 32 symbols: one per 5 random bits. */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const PUBLIC_ID = /^[A-Z2-7]{24}$/;
const TOKEN_SHAPE = /^dt0c01\.([A-Z2-7]{24})\.[A-Z2-7]{64}$/;
const SECRET = /^[A-Z2-7]{64}$/;

export function isPublicId(value: string): boolean {
  return PUBLIC_ID.test(value);
}

/**
 * A fresh token: 120 random bits of public id, 320 random bits of secret. The same shape serves the platform's
 * credentials under their own prefixes (platform-credentials.ts).
 */
export function generateToken(prefix: string = TOKEN_PREFIX): { token: string; publicId: string } {
  const publicId = randomSymbols(PUBLIC_ID_LENGTH);
  return { token: `${prefix}.${publicId}.${randomSymbols(SECRET_LENGTH)}`, publicId };
}

/** The public id of a well-formed `<prefix>.<public id>.<secret>` token; `undefined` for anything else. */
export function publicIdWithPrefix(token: unknown, prefix: string): string | undefined {
  if (typeof token !== 'string' || token.length !== prefix.length + 2 + PUBLIC_ID_LENGTH + SECRET_LENGTH || !token.startsWith(`${prefix}.`)) return undefined;
  const publicId = token.slice(prefix.length + 1, prefix.length + 1 + PUBLIC_ID_LENGTH);
  const secret = token.slice(prefix.length + 2 + PUBLIC_ID_LENGTH);
  return token[prefix.length + 1 + PUBLIC_ID_LENGTH] === '.' && isPublicId(publicId) && SECRET.test(secret) ? publicId : undefined;
}

/** The public id of a well-formed token; `undefined` for anything else (wrong length, alphabet or prefix). */
export function publicIdOf(token: unknown): string | undefined {
  // The length check first keeps the regex off arbitrarily long header values.
  if (typeof token !== 'string' || token.length !== TOKEN_LENGTH) return undefined;
  return TOKEN_SHAPE.exec(token)?.[1];
}

/**
 * SHA-256 of the whole token. No slow KDF: those protect guessable passwords, while the secret here is 320 random
 * bits, so a leaked digest cannot be brute-forced, and `verify` runs on every request: one-shot `hash`, about half
 * the cost of a Hash object per call.
 */
export function digestToken(token: string): Buffer {
  return hash('sha256', token, 'buffer');
}

/** Equal strings of equal length, in time that depends on the length only: a remembered token against a presented one. */
export function sameSecret(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

function randomSymbols(count: number): string {
  // 256 is a multiple of 32, so `byte & 31` is uniform over the alphabet.
  let out = '';
  for (const byte of randomBytes(count)) out += ALPHABET[byte & 31];
  return out;
}
