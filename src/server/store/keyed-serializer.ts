/**
 * Runs tasks one at a time per key (tasks for different keys run concurrently) and can wait for everything in
 * flight. This is what makes parallel PUTs to one id leave exactly one whole version, and what lets close() let
 * acknowledged-to-be writes finish.
 */
export class KeyedSerializer {
  private readonly tails = new Map<string, Promise<unknown>>();
  private readonly inFlight = new Set<Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, settled);
    this.inFlight.add(settled);
    void settled.then(() => {
      this.inFlight.delete(settled);
      if (this.tails.get(key) === settled) this.tails.delete(key);
    });
    return result;
  }

  /** Resolves once every task queued so far (and any queued meanwhile) has settled. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }
}
