/**
 * Calls that share one run while it goes on: a call made while the same key's work is running gets that work's
 * promise instead of starting its own; the next call after it settles starts afresh. For reads whose cost grows with
 * what they read and that many callers may ask for at once.
 */
export function sharedWhileRunning(): <T>(key: string, start: () => Promise<T>) => Promise<T> {
  const running = new Map<string, Promise<unknown>>();
  return <T>(key: string, start: () => Promise<T>): Promise<T> => {
    const current = running.get(key) as Promise<T> | undefined;
    if (current) return current;
    const started = start().finally(() => running.delete(key));
    running.set(key, started);
    return started;
  };
}
