import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Work written as a generator that yields between its steps (a file, a page), run one of two ways: at once
 * (`completed`, for callers that need no event loop, and tests), or in turns (`completedInTurns`), giving the event
 * loop its turn whenever a step ran past `sliceMs` since the last: a daemon's listeners answer while a commit of
 * thousands of files is checked for twenty environments (its `/healthz` went a minute without an answer).
 */
export type Steps<T> = Generator<void, T, void>;

/** Runs every step now. */
export function completed<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/** The slice of the main thread steps take before the event loop gets a turn. */
export const TURN_SLICE_MS = 20;

/** Runs the steps, letting the event loop in after each slice of at most about `sliceMs` (one step may run longer). */
export async function completedInTurns<T>(steps: Steps<T>, sliceMs: number = TURN_SLICE_MS, now: () => number = () => performance.now()): Promise<T> {
  let sliceStart = now();
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    if (now() - sliceStart >= sliceMs) {
      await nextTurn();
      sliceStart = now();
    }
  }
}
