/**
 * How a stop (Ctrl-C, SIGTERM) meets a command that writes. Before its writes begin, everything it is doing is a read
 * (files, the plan's GETs, the target's validator) and stops at once. Once they begin, the writes in flight finish —
 * a PUT cut midway may or may not have landed, and its outcome would be unknown — and no new one starts; the command
 * then reports what was written and what was not. A second stop still ends the process at once (main.ts).
 */
export interface WritePhase {
  /** For the client and every read: aborted by a stop that comes before the writes begin, never by a later one. */
  readonly readSignal: AbortSignal;
  /** The writes begin. */
  beginWrites(): void;
  /** They are over: a stop that came meanwhile now stops the reads (the next environment's plan) too. */
  endWrites(): void;
}

export function writePhase(stop: AbortSignal): WritePhase {
  const reads = new AbortController();
  let writing = false;
  const onStop = (): void => {
    if (!writing) reads.abort(stop.reason);
  };
  if (stop.aborted) onStop();
  else stop.addEventListener('abort', onStop);
  return {
    readSignal: reads.signal,
    beginWrites() {
      writing = true;
    },
    endWrites() {
      writing = false;
      if (stop.aborted) onStop();
    },
  };
}
