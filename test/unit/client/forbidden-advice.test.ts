import { describe, expect, it } from 'vitest';
import type { HttpMethod } from '../../../src/client/errors.js';
import { apiErrorFrom, type FailureContext } from '../../../src/client/messages.js';

/** A 403's advice follows its reason: a missing scope, or a document only its owner may act on. */

const PLATFORM = 'http://127.0.0.1:8080/e/local';
const DOCUMENT = `${PLATFORM}/platform/document/v1/documents/ops-overview`;

function forbidden(method: HttpMethod, url: string, message: string | undefined): string {
  const ctx: FailureContext = { method, url, baseUrl: PLATFORM, attempts: 1, redact: (text) => text };
  const body = message === undefined ? '' : JSON.stringify({ error: { code: 403, message, details: { errorRef: 'r' } } });
  return apiErrorFrom(403, body, ctx).message;
}

describe('403 advice', () => {
  it("an owner's refusal of a write: the owner's credentials or ownership, never a scope", () => {
    expect(forbidden('PATCH', `${DOCUMENT}?optimistic-locking-version=1`, 'Only the owner of document ops-overview (alice) may change or delete it.')).toBe(
      `403 from ${PLATFORM}: Only the owner of document ops-overview (alice) may change or delete it. — no token scope changes that: use the owner's credentials, or have the document owned by the identity dashcd runs as`,
    );
  });

  it("an owner's refusal of a read: have it made public, or read as the owner", () => {
    expect(forbidden('GET', DOCUMENT, 'Document ops-overview is private to its owner.')).toBe(
      `403 from ${PLATFORM}: Document ops-overview is private to its owner. — no token scope changes that: have the owner make it public, or use the owner's credentials`,
    );
  });

  it("a bare Forbidden about one document may be either reason (the real service's wording): both are named", () => {
    expect(forbidden('DELETE', DOCUMENT, 'Forbidden')).toBe(
      `403 from ${PLATFORM}: Forbidden — use a token with the scope this call needs in DT_API_TOKEN; or, if the document is another user's (only its owner may change or delete it): use the owner's credentials, or have the document owned by the identity dashcd runs as`,
    );
  });

  it('a refusal that names a scope, or one about no single document, keeps the scope advice', () => {
    expect(forbidden('POST', `${PLATFORM}/platform/document/v1/documents`, 'Forbidden: the token lacks the scope document:documents:write (Create and change documents).')).toMatch(
      / — use a token with the scope this call needs in DT_API_TOKEN$/,
    );
    expect(forbidden('GET', `${PLATFORM}/platform/document/v1/trash/documents/x`, 'Forbidden')).toBe(`403 from ${PLATFORM}: Forbidden — use a token with the scope this call needs in DT_API_TOKEN`);
    expect(forbidden('PUT', `${PLATFORM}/api/config/v1/dashboards/abc`, undefined)).toBe(`403 from ${PLATFORM}: forbidden — use a token with scope WriteConfig (Write configuration) in DT_API_TOKEN`);
  });
});
