import type { ApiClient } from '../client/api-client.js';
import type { DesiredDashboard } from '../desired/load-desired.js';
import type { CompareRules, DesiredInput, PlanChange } from '../plan/build-plan.js';
import { compareRules } from './compare-rules.js';
import type { CheckedFiles } from './desired-state.js';
import { readAndPlan, type EarlyChanges } from './plan-against-live.js';

interface EarlyDeps {
  api: ApiClient;
  concurrency: number;
  signal?: AbortSignal | undefined;
  /** The rules of comparison, when known before the files are checked; else `begin` gives them. */
  rules?: CompareRules;
  /** The plan will be made despite invalid files (the daemon); else the first invalid file stops early reading. */
  tolerateInvalid?: boolean;
}

/**
 * Runs `plan` with early reads, which stop when it ends however it ends (a plan, invalid files, a failed read, an
 * abort): reads it did not take are abandoned, and no read outlives the plan it was started for.
 */
export async function withEarlyPlans<T>(deps: EarlyDeps, plan: (early: EarlyPlans) => Promise<T>): Promise<T> {
  const early = new EarlyPlans(deps);
  try {
    return await plan(early);
  } finally {
    early.stop();
  }
}

interface Early {
  /** Its id and body are read again only when the plan asks for another object (a cached body is decoded per read). */
  dashboard: Offered;
  /** undefined: the read failed or was stopped; the plan reads that dashboard itself. */
  change: Promise<PlanChange | undefined>;
}

type Offered = DesiredInput & { bodyJson: string };

/**
 * Reads and compares each dashboard as soon as its file checks valid, while the rest of the folder is still being
 * checked, so the reads overlap the checks instead of following them (at 10,000 files they were half the plan).
 * Only a head start: the plan takes an early change when the loader's final dashboard for that file has the same id
 * and body, and reads anything else itself. An invalid file means no plan will be made (unless the run tolerates
 * them), and a failed read says the target needs the plan's own error handling: both stop early reading, in-flight
 * reads included. Nothing is read before the rules of comparison (dashcd.yaml's) are known.
 */
export class EarlyPlans implements EarlyChanges, CheckedFiles {
  private readonly byFile = new Map<string, Early>();
  private readonly waiting: { dashboard: Offered; rules: CompareRules; settle: (change: PlanChange | undefined) => void }[] = [];
  /** Aborted by stop(), and by the caller's signal (a listener removed again by stop(): that signal may be a daemon's). */
  private readonly stopped = new AbortController();
  private readonly onCallerAbort = (): void => this.stop();
  private readonly concurrency: number;
  private inFlight = 0;
  private rules: CompareRules | undefined;

  constructor(private readonly deps: EarlyDeps) {
    this.concurrency = Math.max(1, deps.concurrency);
    this.rules = deps.rules;
    if (deps.signal?.aborted) this.stopped.abort();
    else deps.signal?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  /** dashcd.yaml's rules (its ownership tag and ignored paths) are what the plan compares under. */
  begin(config: Parameters<typeof compareRules>[0]): void {
    this.rules = compareRules(config);
  }

  checked(dashboard: DesiredDashboard | undefined): void {
    if (dashboard !== undefined) this.offer(dashboard);
    else if (this.deps.tolerateInvalid !== true) this.stop();
  }

  offer(dashboard: Offered): void {
    const { rules } = this;
    if (this.stopped.signal.aborted || rules === undefined) return;
    const change = new Promise<PlanChange | undefined>((settle) => this.waiting.push({ dashboard, rules, settle }));
    this.byFile.set(dashboard.file, { dashboard, change });
    this.pump();
  }

  /** No further reads; reads in flight are abandoned and queued ones settle as not read. */
  stop(): void {
    this.deps.signal?.removeEventListener('abort', this.onCallerAbort);
    this.stopped.abort();
    for (const { settle } of this.waiting.splice(0)) settle(undefined);
  }

  /** The early change for this dashboard, if one was started for the same file, id and body; else undefined. */
  take(dashboard: DesiredInput): Promise<PlanChange | undefined> | undefined {
    const early = this.byFile.get(dashboard.file);
    if (early === undefined) return undefined;
    const offered = early.dashboard;
    if (offered !== dashboard && (offered.id !== dashboard.id || offered.bodyJson !== dashboard.bodyJson)) return undefined;
    this.byFile.delete(dashboard.file);
    return early.change;
  }

  private pump(): void {
    while (this.inFlight < this.concurrency && this.waiting.length > 0) {
      const { dashboard, rules, settle } = this.waiting.shift() as (typeof this.waiting)[number];
      this.inFlight++;
      void this.read(dashboard, rules).then(settle, () => {
        this.stop();
        settle(undefined);
      }).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private read(dashboard: Offered, rules: CompareRules): Promise<PlanChange> {
    return readAndPlan(dashboard, { api: this.deps.api, rules, signal: this.stopped.signal });
  }
}
