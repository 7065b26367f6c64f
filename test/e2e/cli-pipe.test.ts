import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAIN_JS } from '../helpers/cli.js';

describe('dashcd as a Unix filter', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dashcd-pipe-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('exits 0 without an error when the reader has closed the pipe (dashcd events query | head -1)', async () => {
    const partition = join(dir, 'events-archive', 'local', 'date=2026-11-20');
    mkdirSync(partition, { recursive: true });
    const start = Date.UTC(2026, 10, 20, 12);
    const lines = Array.from({ length: 200 }, (_, i) =>
      JSON.stringify({ id: `${-4314211936928920170n + BigInt(i)}_${start + i}`, startTime: start + i, eventType: 'CUSTOM_INFO', entityId: 'HOST-1', eventStatus: 'CLOSED', endTime: start + i }),
    );
    writeFileSync(join(partition, 'events.jsonl'), `${lines.join('\n')}\n`);
    const child = spawn(process.execPath, [MAIN_JS, 'events', 'query', '--archive', join(dir, 'events-archive'), '--format', 'jsonl'], { cwd: dir });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // The reader is gone before the first line is written: every write meets a closed pipe.
    child.stdout.destroy();
    const code = await new Promise<number | null>((done) => child.on('close', (c) => done(c)));
    expect(stderr).not.toMatch(/unexpected error|EPIPE/);
    expect(code).toBe(0);
  });
});
