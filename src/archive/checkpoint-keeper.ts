import type { Clock } from '../lib/clock.js';
import type { FsLayer } from '../lib/fs-layer.js';
import { emptyStream, writeCheckpoint, type Checkpoint, type StreamState } from './checkpoint.js';

export interface CheckpointKeeper {
  /** The stream's progress; callers replace it. */
  stream: StreamState;
  /** Writes the checkpoint with the state as it is now; writes run one at a time, in call order. */
  save(): Promise<void>;
  /** Whether enough time has passed since the last checkpoint to write another one. */
  due(): boolean;
}

/**
 * Holds one stream's state and writes it into the environment's checkpoint (other streams' entries kept as read).
 * Callers change the state only for pages already fsynced, so any checkpoint written covers durable data only.
 */
export function createCheckpointKeeper(options: {
  envDir: string;
  key: string;
  initial: Checkpoint;
  clock: Clock;
  fs: FsLayer;
  everyMs: number;
}): CheckpointKeeper {
  const { envDir, key, clock, fs, everyMs } = options;
  let checkpoint = options.initial;
  const stream = checkpoint.streams[key] ?? emptyStream();
  let saving: Promise<void> = Promise.resolve();
  let last = performance.now();
  let gap = everyMs;
  const keeper: CheckpointKeeper = {
    stream,
    save() {
      const write = async (): Promise<void> => {
        const started = performance.now();
        checkpoint = { ...checkpoint, updatedAt: new Date(clock.now()).toISOString(), streams: { ...checkpoint.streams, [key]: keeper.stream } };
        last = started;
        await writeCheckpoint(envDir, checkpoint, fs);
        // A slow disk makes each checkpoint's fsyncs costly: keep them to a small share of the time, whatever the interval.
        gap = Math.max(everyMs, 20 * (performance.now() - started));
      };
      const next = saving.then(write, write);
      saving = next.catch(() => undefined);
      return next;
    },
    due: () => performance.now() - last >= gap,
  };
  return keeper;
}
