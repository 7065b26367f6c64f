import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dataDirLayout } from '../../src/server/data-dir.js';
import { DEFAULT_ENVIRONMENT } from '../../src/schema/ids.js';
import { DEFAULT_ENTITY_COUNT, DEFAULT_OPEN_SHARE, writeEventsJsonl, type EventSetInfo, type EventSetOptions } from '../data/events.js';
import { requireComponent, runNodeScript } from '../lib/cli.js';
import { NotMeasurableYet, type FigureContext } from '../lib/figure.js';

/** Events span this much time back from the anchor: inside the feed's default 30-day window. */
const SPAN_MS = 25 * 86_400_000;
/** One anchor per bench process, so every data set of a run ends at the same instant. */
const ANCHOR_MS = Math.floor(Date.now() / 60_000) * 60_000 - 60_000;

export interface EventFixture {
  info: EventSetInfo;
  /** The generated JSONL (what the naive baseline loads). */
  jsonl: string;
  /** A dashcd data dir whose `local` environment holds the events. */
  dataDir: string;
}

/** The figures serving `eventFixture` data dirs: a data dir has one owner at a time, so they take turns. */
export const EVENTS_LANE = 'events';

const IMPORT_CHILD = fileURLToPath(new URL('../children/import-events.js', import.meta.url));

/** What a data set varies besides its size: the share of open events, the days spanned, the entities. */
export type EventShape = Partial<Pick<EventSetOptions, 'openShare' | 'entityCount' | 'spanMs'>>;

/**
 * The name a data set is shared under: its size and its whole shape, defaults filled in. A shape spelled out as the
 * defaults is the default set, generated and imported once (a million events took minutes to build twice).
 */
export function eventSetKey(count: number, shape: EventShape = {}): string {
  const whole = { openShare: shape.openShare ?? DEFAULT_OPEN_SHARE, spanMs: shape.spanMs ?? SPAN_MS, entityCount: shape.entityCount ?? DEFAULT_ENTITY_COUNT };
  return `events-${count}-open-${whole.openShare}-span-${whole.spanMs}-entities-${whole.entityCount}`;
}

/** `count` seeded events, as JSONL and imported into a data dir, built once per bench run and shape. */
export function eventFixture(ctx: FigureContext, count: number, shape: EventShape = {}): Promise<EventFixture> {
  return ctx.shared(eventSetKey(count, shape), async (dir) => {
    const jsonl = join(dir, 'events.jsonl');
    const dataDir = join(dir, 'data');
    ctx.progress(`generating ${count.toLocaleString('en-US')} events ${JSON.stringify(shape)}`);
    const info = await writeEventsJsonl(jsonl, { count, seed: ctx.seed, anchorMs: ANCHOR_MS, spanMs: SPAN_MS, ...shape });
    const storeDir = dataDirLayout(dataDir).eventsDir(DEFAULT_ENVIRONMENT);
    await mkdir(storeDir, { recursive: true });
    ctx.progress(`importing them into ${storeDir}`);
    const run = await runNodeScript(IMPORT_CHILD, [jsonl, storeDir], { cwd: dir, timeoutMs: 900_000 });
    if (run.code !== 0) throw new Error(`event import failed: ${run.stderr.slice(-800)}`);
    const { size } = JSON.parse(run.stdout) as { size: number };
    if (size !== count) throw new Error(`event import stored ${size} events, expected ${count}`);
    return { info, jsonl, dataDir };
  });
}

/** The events figures need the feed served by the embedded server, and the pull ones `dashcd events pull`. */
export async function requireEventsFeed({ pull }: { pull: boolean }): Promise<void> {
  if (pull) await requireComponent(['events', 'pull'], ['server/routes/events.js', 'archive/pull-events.js']);
  else if (!existsSync(fileURLToPath(new URL('../../src/server/routes/events.js', import.meta.url)))) {
    throw new NotMeasurableYet('src/server/routes/events.ts has not landed yet');
  }
}
