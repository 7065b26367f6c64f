import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import type { ConstraintViolation, ErrorEnvelope } from '../../schema/error-envelope.js';
import type { HttpError } from './http-error.js';
import type { RouteResponse } from './route.js';
import { closeIfBodyUnread } from './unread-body.js';

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

/**
 * The envelope for `error`, on every listener. A request body left unread closes the connection (unread-body.ts): no
 * error answer reads a body to its end only to drop it.
 */
export function sendError(res: ServerResponse, error: HttpError, extraHeaders: Record<string, string> = {}): void {
  sendJson(res, error.status, errorEnvelope(error.status, error.message, error.violations), {
    ...closeIfBodyUnread(res.req),
    ...error.headers,
    ...extraHeaders,
  });
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = NO_HEADERS,
): void {
  sendBytes(res, status, Buffer.from(JSON.stringify(body)), headers);
}

/**
 * A body sent as it is in several pieces, one socket write for all of them: a large piece (a document's content) is
 * never copied to join it to its framing.
 */
export class BodyParts {
  readonly byteLength: number;

  constructor(readonly parts: readonly Uint8Array[]) {
    this.byteLength = parts.reduce((sum, part) => sum + part.byteLength, 0);
  }
}

/**
 * A body on loan from a buffer shared with other bodies (an events page cut from a body slab): while any of its bytes
 * wait in a connection's queue, the whole buffer is held. So a connection busy with earlier answers gets a copy of its
 * own, and an answer that does not leave at once must be taken within `stalledMs` or its connection is cut (as
 * nginx's send_timeout): a reader that stalls holds at most one shared buffer, and its copies, for a bounded time.
 * The loan ends (`giveBack`) once the bytes are copied, or the socket's write of them is over: taken by the kernel,
 * or cancelled with a connection cut before they all left. An answer that ends otherwise (its connection failed)
 * keeps its bytes on loan, which only keeps their buffer from other bodies.
 */
export class LentBytes {
  constructor(
    readonly bytes: Buffer,
    readonly stalledMs: number,
    /** Told when a stalled reader is cut (before the connection closes). */
    readonly onStalled: () => void,
    /** Told once the bytes may be written over. */
    readonly giveBack: () => void,
  ) {}
}

/** Writes a handler's answer: bytes as they are, 204/304 without a body, anything else as JSON. */
export function sendRouteResponse(res: ServerResponse, response: RouteResponse): void {
  const { status, body, headers = NO_HEADERS } = response;
  if (status === 204 || status === 304 || body === undefined) {
    if (res.destroyed) return;
    res.writeHead(status, headerList(headers));
    res.end();
  } else if (body instanceof Readable) {
    sendStream(res, status, body, headers);
  } else if (body instanceof Uint8Array || body instanceof BodyParts) {
    sendBytes(res, status, body, headers);
  } else if (body instanceof LentBytes) {
    sendLent(res, status, body, headers);
  } else {
    sendJson(res, status, body, headers);
  }
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * A JSON body with its headers: `content-type` (JSON unless `headers` says otherwise) first, then `headers`, then
 * `content-length`. The headers go to writeHead as a flat list, which Node writes without building an object.
 */
function sendBytes(res: ServerResponse, status: number, bytes: Uint8Array | BodyParts, headers: Readonly<Record<string, string>>): void {
  // The client may have gone away while the handler ran; there is nobody left to answer.
  if (res.destroyed || res.headersSent) return;
  const list = ['content-type', headers['content-type'] ?? JSON_CONTENT_TYPE];
  for (const name in headers) {
    if (name !== 'content-type' && name !== 'content-length') list.push(name, headers[name] as string);
  }
  list.push('content-length', String(bytes.byteLength));
  res.writeHead(status, list);
  if (bytes instanceof Uint8Array) {
    res.end(bytes);
    return;
  }
  // Corked, the pieces leave in one writev with the headers, as a single buffer would.
  res.cork();
  const last = bytes.parts.length - 1;
  for (let i = 0; i < last; i++) res.write(bytes.parts[i]);
  res.end(bytes.parts[last]);
  res.uncork();
}

function sendLent(res: ServerResponse, status: number, lent: LentBytes, headers: Readonly<Record<string, string>>): void {
  // Gone while the page was read (as sendBytes would find): no copy to make, and no reader to cut or warn of later.
  if (res.destroyed || res.headersSent) {
    lent.giveBack();
    return;
  }
  // Busy: a pipelined request whose turn has not come, or a connection still sending an earlier answer.
  const busy = res.socket === null || res.socket.writableLength > 0;
  sendBytes(res, status, busy ? Buffer.from(lent.bytes) : lent.bytes, headers);
  // Not all of it left at once (waiting its turn, or the kernel took only part of it): the reader has stalledMs.
  const waiting = busy || (res.socket !== null && res.socket.writableLength > 0);
  if (waiting) cutWhenStalled(res, lent);
  // The bytes are the socket's until its write is over: 'finish' follows the write's callback, sent or cancelled.
  if (busy || !waiting) lent.giveBack();
  else res.once('finish', lent.giveBack);
}

function cutWhenStalled(res: ServerResponse, lent: LentBytes): void {
  const timer = setTimeout(() => {
    lent.onStalled();
    res.destroy();
  }, lent.stalledMs);
  timer.unref();
  const settled = (): void => clearTimeout(timer);
  res.once('finish', settled);
  res.once('close', settled);
}

function headerList(headers: Readonly<Record<string, string>>): string[] {
  const list: string[] = [];
  for (const name in headers) list.push(name, headers[name] as string);
  return list;
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
  // HEAD: the headers (Content-Length included) are the whole answer; reading the file would only be thrown away.
  if (res.req.method === 'HEAD') {
    body.destroy();
    res.end();
    return;
  }
  body.pipe(res);
}

/**
 * Node's own answers to requests it cannot parse (bad framing, oversized headers, request timeout) have no body;
 * this writes the envelope on the raw socket instead, once every response still owed on the connection is sent:
 * garbage pipelined after a PUT or POST must not hide that the write was done (its client would retry a create).
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  // The parser reports its error again for every later chunk (and a timeout sweep may add one): one answer per
  // connection. Reading goes on (a paused socket would never see its client's close, and hold its descriptor).
  if (answering.has(socket)) return;
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  answering.add(socket);
  const status = clientErrorStatus(error.code);
  afterOwedResponses(socket, () => {
    socket.end(rawErrorResponse(status, clientErrorMessage(status)));
    // Ended, the socket is out of Node's timeout sweep: a client that never closes its side (or trickles bytes) held
    // its descriptor for as long as it liked, and 200 such connections took a server's last descriptors (503 to all).
    setTimeout(() => socket.destroy(), CLIENT_ERROR_LINGER_MS).unref();
  });
}

/** How long a connection answered with a client error stays open for its client to read the answer and close. */
export const CLIENT_ERROR_LINGER_MS = 5_000;

/** Connections whose client error is being answered. */
const answering = new WeakSet<Socket>();

/** A whole error response for a raw socket, the envelope as its body; the connection closes after it. */
export function rawErrorResponse(status: number, message: string, headers = ''): string {
  const body = JSON.stringify(errorEnvelope(status, message));
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${headers}` +
    `content-type: ${JSON_CONTENT_TYPE}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`
  );
}

/**
 * Runs `then` when the connection owes no response: the one being written, and each pipelined one Node hands the
 * socket after it, has finished. Checked a turn later each time: a response can be finished with its 'finish' (on
 * which Node hands over the next one) still to come. Only responses to whole requests are owed; a response that ends
 * without finishing (its socket closed) leaves nothing to do.
 */
function afterOwedResponses(socket: Socket, then: () => void, seen?: ServerResponse): void {
  setImmediate(() => {
    // Ended already (an owed response said `connection: close`): Node closes it, and the 400 has no place.
    if (!socket.writable) return;
    const current = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (current && !current.req.complete) {
      // The request cut short (a client gone mid-body, a timeout) is the one owed: its response can never finish, and
      // ending the connection is what tells its handler to drop what it read. Half a response sent: no 400 after it.
      if (current.headersSent) socket.destroy();
      else then();
      return;
    }
    if (!current || (current.writableFinished && current === seen)) {
      then();
      return;
    }
    if (current.writableFinished) {
      afterOwedResponses(socket, then, current);
      return;
    }
    current.once('finish', () => afterOwedResponses(socket, then, current));
    current.once('close', () => {
      if (!current.writableFinished) socket.destroy();
    });
  });
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
