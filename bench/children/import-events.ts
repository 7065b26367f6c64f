import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { openEventStore } from '../../src/server/feed/open-event-store.js';
import { encodeEvent, type EncodedEvent } from '../../src/server/feed/event-record.js';

/**
 * Setup, not measured: loads a JSONL of EventRestEntry lines into the event store at `dir` through the store's
 * own API, in batches (the store links big batches into its index in one merge). argv: <jsonl> <store dir>.
 */
const BATCH = 20_000;

async function main(): Promise<void> {
  const [jsonl = '', dir = ''] = process.argv.slice(2);
  const store = await openEventStore({ dir });
  let batch: EncodedEvent[] = [];
  let stored = 0;
  const flush = async (): Promise<void> => {
    stored += (await store.put(batch)).created;
    batch = [];
  };
  for await (const line of createInterface({ input: createReadStream(jsonl), crlfDelay: Infinity })) {
    if (line === '') continue;
    const encoded = encodeEvent(JSON.parse(line) as Record<string, unknown>);
    if (!encoded.ok) throw new Error(`generated event rejected: ${encoded.problems.join('; ')}: ${line.slice(0, 200)}`);
    batch.push(encoded.event);
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  const size = store.size;
  await store.close();
  process.stdout.write(`${JSON.stringify({ stored, size })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
