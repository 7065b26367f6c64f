import { deserialize, serialize } from 'node:v8';
import { constants, deflateRawSync, inflateRawSync } from 'node:zlib';

declare const onHeap: unique symbol;

/**
 * Bytes held as a one-byte string, one character per byte, on V8's own heap instead of in a Buffer.
 *
 * Why: a Buffer's memory comes from malloc, and glibc hands freed memory back to the system only from the top of its
 * main heap. Bytes kept for long among the many short-lived Buffers of a busy spell (request bodies, socket reads,
 * files read) pin that heap at its high-water mark: the daemon reconciling 10,000 dashboards kept ~230 MB of it
 * resident with under 10 MB in use (`malloc_stats`, bench `daemon-scale`). V8's heap compacts and gives its pages
 * back. A Latin-1 string is the one string V8 stores at a byte per character for any bytes, UTF-8 or not.
 */
export type HeapBytes = string & { readonly [onHeap]: true };

export function holdOnHeap(bytes: Uint8Array): HeapBytes {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1') as HeapBytes;
}

/** A fresh Buffer of the held bytes (its memory is the caller's, to use and drop). */
export function bytesOf(held: HeapBytes): Buffer {
  return Buffer.from(held, 'latin1');
}

/**
 * Bytes kept long and read rarely: deflated at the fastest level (most of the saving, JSON and its like repeating
 * themselves, for a fraction of the default level's time) and held on V8's heap.
 */
export function deflateOnHeap(bytes: Uint8Array): HeapBytes {
  return holdOnHeap(deflateRawSync(bytes, { level: constants.Z_BEST_SPEED }));
}

/** A fresh Buffer of the bytes deflateOnHeap kept. */
export function inflateFromHeap(held: HeapBytes): Buffer {
  return inflateRawSync(bytesOf(held));
}

/** A value kept as structuredClone would copy it: serialised, then deflateOnHeap. */
export function packOnHeap(value: unknown): HeapBytes {
  return deflateOnHeap(serialize(value));
}

/** A fresh copy of the value packOnHeap kept: the caller's to keep or change. */
export function unpackFromHeap(held: HeapBytes): unknown {
  return deserialize(inflateFromHeap(held));
}
