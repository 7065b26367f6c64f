import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { closeIfBodyUnread } from '../../../../src/server/http/unread-body.js';

const request = (complete: boolean, headers: Record<string, string>): IncomingMessage => ({ complete, headers }) as unknown as IncomingMessage;

describe('closeIfBodyUnread', () => {
  it.each([
    ['no body declared', {}],
    ['Content-Length: 0', { 'content-length': '0' }],
  ])('keeps the connection of an unfinished request with %s', (_, headers) => {
    expect(closeIfBodyUnread(request(false, headers))).toEqual({});
  });

  it.each([
    ['Content-Length: 1', { 'content-length': '1' }],
    ['Content-Length: 5000', { 'content-length': '5000' }],
    ['chunked', { 'transfer-encoding': 'chunked' }],
    ['chunked with Content-Length: 0', { 'transfer-encoding': 'chunked', 'content-length': '0' }],
  ])('closes the connection of an unfinished request with %s', (_, headers) => {
    expect(closeIfBodyUnread(request(false, headers))).toEqual({ connection: 'close' });
  });

  it('keeps the connection of a request read to its end, whatever body it had', () => {
    expect(closeIfBodyUnread(request(true, { 'content-length': '5000' }))).toEqual({});
    expect(closeIfBodyUnread(request(true, { 'transfer-encoding': 'chunked' }))).toEqual({});
  });
});
