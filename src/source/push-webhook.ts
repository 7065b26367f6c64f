import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** What a push webhook asks for, after its signature checked out. */
export type PushHookVerdict =
  | { kind: 'unauthorized'; message: string }
  | { kind: 'bad-request'; message: string }
  /** Signed and about a ref that is followed: fetch now. */
  | { kind: 'push'; host: 'github' | 'gitlab'; ref: string }
  /** Signed, but nothing to do: another branch, a ping, another event type. */
  | { kind: 'ignored'; host: 'github' | 'gitlab'; reason: string }
  /** Signed and about a followed ref, but already acted on: a replay or a redelivery queues no work again. */
  | { kind: 'replay'; host: 'github' | 'gitlab'; ref: string };

export interface PushHookInput {
  headers: IncomingHttpHeaders;
  /** The raw body: GitHub signs the bytes as sent, so they are checked before any parsing. */
  body: Buffer;
  secret: string;
  /** Whether a push to this ref (`refs/heads/main`, `refs/tags/release-7`) concerns anything followed. */
  follows(ref: string): boolean;
  /**
   * Whether a push delivery is new, by its keys (the host's delivery ids, the body's digest); remembers it. See
   * DeliveryMemory. Without it every valid delivery is acted on.
   */
  firstTime?(keys: readonly string[]): boolean;
}

/**
 * Verifies a GitHub (`X-Hub-Signature-256`: HMAC-SHA256 of the body) or GitLab (`X-Gitlab-Token`: the secret
 * itself) push webhook and says what it asks for. Both comparisons take constant time in the compared values, so the
 * answer's timing tells nothing about the secret.
 */
export function judgePushHook(input: PushHookInput): PushHookVerdict {
  // An empty secret would make every GitLab token '' and every GitHub signature computable by anyone.
  if (input.secret === '') return { kind: 'unauthorized', message: 'no webhook secret is set: DASHCD_WEBHOOK_SECRET is empty' };
  const github = header(input.headers, 'x-hub-signature-256');
  const gitlab = header(input.headers, 'x-gitlab-token');
  if (github !== undefined) {
    const expected = `sha256=${createHmac('sha256', input.secret).update(input.body).digest('hex')}`;
    if (!sameSecret(github, expected)) return { kind: 'unauthorized', message: 'X-Hub-Signature-256 does not match the body signed with DASHCD_WEBHOOK_SECRET' };
    return judgeEvent('github', header(input.headers, 'x-github-event') ?? '', input);
  }
  if (gitlab !== undefined) {
    if (!sameSecret(gitlab, input.secret)) return { kind: 'unauthorized', message: 'X-Gitlab-Token is not DASHCD_WEBHOOK_SECRET' };
    return judgeEvent('gitlab', header(input.headers, 'x-gitlab-event') ?? '', input);
  }
  return { kind: 'unauthorized', message: 'unsigned webhook: send X-Hub-Signature-256 (GitHub) or X-Gitlab-Token (GitLab)' };
}

const PUSH_EVENTS = { github: ['push'], gitlab: ['Push Hook', 'Tag Push Hook'] } as const;

function judgeEvent(host: 'github' | 'gitlab', event: string, input: PushHookInput): PushHookVerdict {
  if (!(PUSH_EVENTS[host] as readonly string[]).includes(event)) return { kind: 'ignored', host, reason: `event '${event}' is not a push` };
  const ref = pushedRef(input.body, input.headers['content-type']);
  if (ref === undefined) return { kind: 'bad-request', message: 'the push payload has no "ref" (send it as application/json)' };
  if (!input.follows(ref)) return { kind: 'ignored', host, reason: `push to ${ref}, which is not followed` };
  return input.firstTime?.(deliveryKeys(host, input)) === false ? { kind: 'replay', host, ref } : { kind: 'push', host, ref };
}

/**
 * The host's delivery ids are sent beside the signature, not under it (GitHub signs the body only), so a replay may
 * carry a fresh id: the signed body's digest is a key too. A push's body names its commits and time, so two pushes
 * never share one. Gitea answers to GitHub's headers and adds its own id; GitLab retries keep the Idempotency-Key.
 */
const DELIVERY_HEADERS = { github: ['x-github-delivery', 'x-gitea-delivery'], gitlab: ['x-gitlab-event-uuid', 'idempotency-key'] } as const;

function deliveryKeys(host: 'github' | 'gitlab', input: PushHookInput): string[] {
  const ids = DELIVERY_HEADERS[host].map((name) => header(input.headers, name)).filter((id): id is string => id !== undefined && id !== '');
  return [`${host} body ${createHash('sha256').update(input.body).digest('hex')}`, ...ids.map((id) => `${host} delivery ${id}`)];
}

/** `ref` of a JSON payload, or of GitHub's form encoding (`payload=<json>`). */
function pushedRef(body: Buffer, contentType: string | undefined): string | undefined {
  const text = body.toString('utf8');
  // No payload field: String(null) parses as null, which has no ref.
  const json = contentType?.startsWith('application/x-www-form-urlencoded') ? String(new URLSearchParams(text).get('payload')) : text;
  let parsed: { ref?: unknown } | null | undefined;
  try {
    parsed = JSON.parse(json) as { ref?: unknown } | null;
  } catch {
    // Not JSON: no ref.
  }
  const ref = parsed?.ref;
  return typeof ref === 'string' ? ref : undefined;
}

/** Compares digests of both sides: equal lengths for timingSafeEqual, and no early exit on the first difference. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
