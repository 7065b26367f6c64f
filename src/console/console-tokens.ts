import type { ConsoleTokens, TokenFacts } from './console-access.js';

/** The slice of a server's environment registry the console reads its token stores from (structural: no server import). */
export interface TokenRegistry {
  ids(): readonly string[];
  lookup(env: string): { readonly tokens: { verify(token: string): TokenFacts | undefined; list(): readonly TokenFacts[] } } | undefined;
}

/** The API's own token stores, for `serve` and the daemon's embedded API alike. */
export function consoleTokens(registry: TokenRegistry): ConsoleTokens {
  return {
    environments: () => registry.ids(),
    verify: (env, token) => registry.lookup(env)?.tokens.verify(token),
    current: (env, id) => registry.lookup(env)?.tokens.list().find((t) => t.id === id),
  };
}
