/** `make`'s value, made on the first call and kept: for a value some callers need and most never ask for. */
export function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}
