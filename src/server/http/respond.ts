import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import type { ConstraintViolation, ErrorEnvelope } from '../../schema/error-envelope.js';
import type { HttpError } from './http-error.js';
import type { RouteResponse } from './route.js';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** The one place an ErrorEnvelope is built: every non-2xx body has this shape. */
export function errorEnvelope(status: number, message: string, violations?: readonly ConstraintViolation[]): ErrorEnvelope {
  return {
    error: {
      code: status,
      message,
      ...(violations && violations.length > 0 ? { constraintViolations: [...violations] } : {}),
    },
  };
}

export function sendError(res: ServerResponse, error: HttpError, extraHeaders: Record<string, string> = {}): void {
  sendJson(res, error.status, errorEnvelope(error.status, error.message, error.violations), {
    ...error.headers,
    ...extraHeaders,
  });
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  sendBytes(res, status, Buffer.from(JSON.stringify(body)), { 'content-type': JSON_CONTENT_TYPE, ...headers });
}

/** Writes a handler's answer: bytes as they are, 204/304 without a body, anything else as JSON. */
export function sendRouteResponse(res: ServerResponse, response: RouteResponse): void {
  const { status, body, headers = {} } = response;
  if (status === 204 || status === 304 || body === undefined) {
    if (res.destroyed) return;
    res.writeHead(status, headers);
    res.end();
  } else if (body instanceof Readable) {
    sendStream(res, status, body, headers);
  } else if (body instanceof Uint8Array) {
    sendBytes(res, status, body, { 'content-type': JSON_CONTENT_TYPE, ...headers });
  } else {
    sendJson(res, status, body, headers);
  }
}

function sendBytes(res: ServerResponse, status: number, bytes: Uint8Array, headers: Readonly<Record<string, string>>): void {
  // The client may have gone away while the handler ran; there is nobody left to answer.
  if (res.destroyed || res.headersSent) return;
  res.writeHead(status, { ...headers, 'content-length': String(bytes.byteLength) });
  res.end(bytes);
}

/** Streams a file-like body; a read error after the headers went out can only cut the connection. */
function sendStream(res: ServerResponse, status: number, body: Readable, headers: Readonly<Record<string, string>>): void {
  if (res.destroyed || res.headersSent) {
    body.destroy();
    return;
  }
  body.once('error', () => res.destroy());
  res.once('close', () => body.destroy());
  res.writeHead(status, headers);
  body.pipe(res);
}

/**
 * Node's own answers to requests it cannot parse (bad framing, oversized headers, request timeout) have no body;
 * this writes the envelope on the raw socket instead, unless a response is already under way on it.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  const current = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || current?.headersSent) {
    socket.destroy();
    return;
  }
  const status = clientErrorStatus(error.code);
  const body = JSON.stringify(errorEnvelope(status, clientErrorMessage(status)));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
      `content-type: ${JSON_CONTENT_TYPE}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

function clientErrorStatus(code: string | undefined): number {
  if (code === 'HPE_HEADER_OVERFLOW') return 431;
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT' || code === 'ERR_HTTP_HEADERS_TIMEOUT') return 408;
  return 400;
}

function clientErrorMessage(status: number): string {
  if (status === 431) return 'Request headers too large.';
  if (status === 408) return 'Request timed out: the request was not received in time.';
  return 'Malformed HTTP request.';
}
