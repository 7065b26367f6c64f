import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireOwnership } from '../../src/server/data-dir.js';
import { serverNodeOptions } from '../../src/server/server-node-options.js';
import { MAIN_JS } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('serve on a data dir a command holds for a moment', () => {
  it('waits for it, then serves (it exited 4, "still starting", when a token create held it)', async () => {
    dir = await mkdtemp(join(tmpdir(), 'dashcd-serve-wait-'));
    const data = join(dir, 'data');
    const moment = await acquireOwnership(data, { lasting: false });
    const child = spawn(process.execPath, [...serverNodeOptions(), MAIN_JS, 'serve', '--port', '0', '--data', data], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DASHCD_LOG_LEVEL: 'warn' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      await waitFor(async () => (output.includes('waiting for it') || child.exitCode !== null ? true : undefined), { what: 'serve to wait', timeoutMs: 30_000 });
      expect(output).toContain(`data dir in use by dashcd pid ${process.pid} (still starting); waiting for it`);
      await moment.release();
      await waitFor(async () => (output.includes('dashcd serving') || child.exitCode !== null ? true : undefined), { what: 'serve to start', timeoutMs: 30_000 });
      expect(output).toMatch(/dashcd serving http:\/\/127\.0\.0\.1:\d+\/e\/local/);
    } finally {
      child.kill('SIGTERM');
      await exited;
      await moment.release();
    }
  });
});
