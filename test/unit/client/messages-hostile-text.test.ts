import { describe, expect, it } from 'vitest';
import { apiErrorFrom, type FailureContext } from '../../../src/client/messages.js';
import { createRedactor } from '../../../src/client/redact.js';

/**
 * A hostile target's error envelope: its message and violations hold escape sequences (retitle the terminal, erase
 * and overwrite the line above, fake colours) and line breaks around a GitHub Actions workflow command. The message
 * dashcd makes of it is printed on a terminal and in CI logs: the target's words stay, its controls do not.
 */
const HOSTILE = 'nope \u001b]0;PWNED-TITLE\u0007\u001b[2K\u001b[1A\u001b[31mFAKE: all good\n::error title=Injected::x\r\u009b2J';
const SHOWN = 'nope  ]0;PWNED-TITLE  [2K [1A [31mFAKE: all good ::error title=Injected::x  2J';
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

const ctx: FailureContext = {
  method: 'PUT',
  url: 'http://127.0.0.1:8080/e/local/api/config/v1/dashboards/abc',
  baseUrl: 'http://127.0.0.1:8080/e/local',
  attempts: 1,
  redact: createRedactor('s3cr3t-token-value'),
};

const envelope = (code: number, extra: object = {}): string => JSON.stringify({ error: { code, message: HOSTILE, ...extra } });

describe("apiErrorFrom: a target's words in the message are printable", () => {
  it('403: the server message, as one line without control characters', () => {
    const error = apiErrorFrom(403, envelope(403), ctx);
    expect(error.message).toBe(`403 from ${ctx.baseUrl}: ${SHOWN} — use a token with scope WriteConfig (Write configuration) in DT_API_TOKEN`);
  });

  it('403 naming the missing scope: the scopes it lists', () => {
    const error = apiErrorFrom(403, JSON.stringify({ error: { code: 403, message: 'Token is missing required scope. Use one of: Evil\u001b[2K\nscope' } }), ctx);
    expect(error.message).toBe(`403 from ${ctx.baseUrl}: token is missing scope Evil [2K scope — put a token with it in DT_API_TOKEN`);
  });

  it('403 naming the missing scope: at most 200 characters of what it lists, read at once however long the message', () => {
    const message = `Token is missing required scope. Use one of: a${' '.repeat(1_000_000)}b`;
    const error = apiErrorFrom(403, JSON.stringify({ error: { code: 403, message } }), ctx);
    expect(error.message).toBe(`403 from ${ctx.baseUrl}: token is missing scope a… — put a token with it in DT_API_TOKEN`);
    const long = apiErrorFrom(403, JSON.stringify({ error: { code: 403, message: `Use one of: ${'x'.repeat(500)}` } }), ctx);
    expect(long.message).toBe(`403 from ${ctx.baseUrl}: token is missing scope ${'x'.repeat(200)}… — put a token with it in DT_API_TOKEN`);
  });

  it('401, 5xx and any other status: the server message', () => {
    expect(apiErrorFrom(401, envelope(401), ctx).message).toBe(`401 from ${ctx.baseUrl}: token rejected (${SHOWN}) — check DT_API_TOKEN`);
    expect(apiErrorFrom(503, envelope(503), ctx).message).toBe(`503 from PUT ${ctx.url}: ${SHOWN} — the target is failing; retry later`);
    expect(apiErrorFrom(409, envelope(409), ctx).message).toBe(`409 from PUT ${ctx.url}: ${SHOWN}`);
  });

  it("400: each violation's path and message (summarizeViolations), redacted as before", () => {
    const violations = [{ path: 'tiles[0].\u001b]0;x\u0007name', message: `${HOSTILE} s3cr3t-token-value` }, { path: null, message: 'second\u2028line' }];
    const error = apiErrorFrom(400, JSON.stringify({ error: { code: 400, message: 'Constraints violated.', constraintViolations: violations } }), ctx);
    expect(error.message).toBe(`400 from PUT ${ctx.url}: Constraints violated. tiles[0]. ]0;x name: ${SHOWN} [REDACTED]; second line`);
    expect(error.message).not.toMatch(CONTROL);
  });

  it('keeps the envelope as the target sent it, and legitimate Unicode in the message as it is', () => {
    expect(apiErrorFrom(403, envelope(403), ctx).envelope?.error.message).toBe(HOSTILE);
    const words = 'Zugriff verweigert für „Übersicht“ 👩‍💻 — 访问被拒绝';
    expect(apiErrorFrom(409, JSON.stringify({ error: { code: 409, message: words } }), ctx).message).toBe(`409 from PUT ${ctx.url}: ${words}`);
  });
});
