import { describe, expect, it } from 'vitest';
import { createRequester } from '../../../src/client/request.js';
import type { SendInput, Transport, TransportOutcome } from '../../../src/client/transport.js';
import type { Clock } from '../../../src/lib/clock.js';
import { silentLogger } from '../../../src/lib/logger.js';

/** Time that moves only when slept. */
function fakeClock(): Clock {
  let now = Date.UTC(2026, 0, 15, 12, 0, 0);
  return {
    now: () => now,
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      now += ms;
    },
  };
}

/** The network boundary: records every input it is sent and answers from a script. */
function recordingTransport(answers: number[]): Transport & { sent: SendInput[] } {
  const sent: SendInput[] = [];
  return {
    sent,
    send: async (input): Promise<TransportOutcome> => {
      sent.push(input);
      return { kind: 'response', status: answers.shift() ?? 200, headers: {}, text: '{}' };
    },
    close: async () => undefined,
  };
}

function requesterOver(transport: Transport) {
  return createRequester({
    root: new URL('http://127.0.0.1:8080/e/prod/api'),
    baseUrl: 'http://127.0.0.1:8080/e/prod/api',
    token: 'dt0c01.TEST',
    transport,
    policy: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 100, deadlineMs: 10_000 },
    clock: fakeClock(),
    random: () => 0,
    log: silentLogger(),
    redact: (text) => text,
  });
}

describe('createRequester: the request body', () => {
  it('is encoded to bytes once: a PUT retried after a 503 sends the very same bytes on every attempt', async () => {
    const transport = recordingTransport([503, 503, 200]);
    const body = { dashboardMetadata: { name: 'Ops — ünïcode' }, tiles: [] };
    const response = await requesterOver(transport)('PUT', '/config/v1/dashboards/abc', { body });
    expect(response.attempts).toBe(3);
    const [first, ...rest] = transport.sent.map((input) => input.body);
    expect(first).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(first as Uint8Array).toString('utf8')).toBe(JSON.stringify(body));
    expect(rest).toHaveLength(2);
    for (const again of rest) expect(again).toBe(first);
    expect(transport.sent.every((input) => input.headers['content-type'] === 'application/json')).toBe(true);
  });

  it('sends a string body as the JSON text it already is, and no body or content type without one', async () => {
    const transport = recordingTransport([]);
    const request = requesterOver(transport);
    await request('POST', '/config/v1/dashboards', { body: '{"a":1}' });
    await request('GET', '/config/v1/dashboards');
    const [post, get] = transport.sent;
    expect(Buffer.from(post?.body as Uint8Array).toString('utf8')).toBe('{"a":1}');
    expect(get?.body).toBeUndefined();
    expect(get?.headers['content-type']).toBeUndefined();
  });
});
