import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { Scope } from '../../schema/scopes.js';
import { isPublicId } from './token-format.js';

/** A token name is shown in tables and messages, so it is one short line of printable text. */
export const TokenName = z
  .string()
  .trim()
  .min(1, 'A token name must not be empty.')
  .max(100, 'A token name is at most 100 characters.')
  .regex(/^[^\p{Cc}]*$/u, 'A token name must not contain control characters.');

/** The body of a token create request (admin API) and the input of `TokenStore.create`. */
export const CreateTokenInput = z.object({
  name: TokenName,
  scopes: z.array(Scope).min(1, 'A token needs at least one scope.'),
});
export type CreateTokenInput = z.infer<typeof CreateTokenInput>;

export const PublicTokenId = z.string().refine(isPublicId, 'Not a token id (24 characters A-Z, 2-7).');

/** What may be shown about a token: everything but the secret and its digest. */
export const TokenInfo = z.object({
  id: PublicTokenId,
  name: z.string(),
  scopes: z.array(Scope),
  createdAt: z.string(),
});
export type TokenInfo = z.infer<typeof TokenInfo>;

/** A record in `tokens.json`: the info plus the hex SHA-256 of the whole token; the token itself is never stored. */
export const StoredToken = TokenInfo.extend({ sha256: z.string().regex(/^[0-9a-f]{64}$/) });
export type StoredToken = z.infer<typeof StoredToken>;

export const TokenFile = z.object({ version: z.literal(1), tokens: z.array(StoredToken) });
export type TokenFile = z.infer<typeof TokenFile>;

export type TokenStoreErrorCode = 'INVALID_TOKEN_INPUT' | 'AMBIGUOUS_TOKEN_NAME' | 'TOKEN_FILE_DAMAGED';

/** A token store failure with a stable code: the admin API answers 400 for the first two. */
export class TokenStoreError extends Error {
  constructor(
    readonly code: TokenStoreErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'TokenStoreError';
  }
}

/**
 * Reads `tokens.json` synchronously: it is a few hundred bytes, and the reload runs inside `verify`, which must
 * answer the request it is checking. A missing file is an empty store; anything unreadable is a typed error.
 */
export function readTokenFile(file: string): StoredToken[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new TokenStoreError('TOKEN_FILE_DAMAGED', `cannot read token file ${file}`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new TokenStoreError('TOKEN_FILE_DAMAGED', `token file ${file} is not valid JSON — restore it or remove it and create new tokens`, { cause: error });
  }
  const parsed = TokenFile.safeParse(json);
  if (!parsed.success) {
    throw new TokenStoreError('TOKEN_FILE_DAMAGED', `token file ${file} has an unexpected shape: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  }
  return parsed.data.tokens;
}

export function serializeTokenFile(tokens: readonly StoredToken[]): string {
  const file: TokenFile = { version: 1, tokens: [...tokens] };
  return `${JSON.stringify(file, null, 2)}\n`;
}
