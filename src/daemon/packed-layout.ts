import { packOnHeap, unpackFromHeap, type HeapBytes } from '../lib/heap-bytes.js';

declare const packed: unique symbol;

/**
 * A dashboard's layout as the daemon keeps it between passes for the console: serialised (the structured-clone
 * format, so it comes back exactly as structuredClone would copy it) and deflated, on V8's heap (heap-bytes.ts). As
 * objects, 10,000 layouts (tiles with their bounds, names, markdown) held 52 MB of the daemon's heap, about a third
 * of what it kept live after its start-up pass (bench `daemon-scale`); packed they are a few hundred bytes each, and
 * only a console page view unpacks them.
 */
export type PackedLayout = HeapBytes & { readonly [packed]: true };

export function packLayout(layout: unknown): PackedLayout {
  return packOnHeap(layout) as PackedLayout;
}

/** A fresh copy of the layout `packLayout` packed: the caller's to keep or change. */
export function unpackLayout(layout: PackedLayout): unknown {
  return unpackFromHeap(layout);
}
