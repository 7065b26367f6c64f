import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPartitionWriter, partitionDir, PARTITION_FILE } from '../../../src/archive/partition-writer.js';
import { MAX_LINE_BYTES } from '../../../src/lib/jsonl.js';
import { captureLog } from '../../helpers/log-capture.js';
import { tempDirPerTest } from '../../helpers/scratch.js';

let envDir: string;
tempDirPerTest('dashcd-partition-', (created) => (envDir = created));

describe('a partition holding a line too long to be an event', () => {
  it('is read past it, with a warning naming the line and its size', async () => {
    const day = '2026-12-01';
    await mkdir(partitionDir(envDir, day), { recursive: true });
    await writeFile(join(partitionDir(envDir, day), PARTITION_FILE), `${'x'.repeat(MAX_LINE_BYTES + 1)}\n`);
    const { lines, log } = captureLog();
    const writer = createPartitionWriter({ envDir, log });
    expect((await writer.openEvents(day)).size).toBe(0);
    await writer.close();
    expect(lines.filter((line) => line['msg'] === 'skipping an archive line too long to be an event').map((line) => [line['line'], line['bytes']])).toEqual([[1, MAX_LINE_BYTES + 1]]);
  });
});
