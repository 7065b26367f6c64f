import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
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

describe('serve and the daemon on a data dir a command holds for a moment', () => {
  for (const { command, args, ready, level } of [
    { command: 'serve', args: ['serve', '--port', '0'], ready: /dashcd serving http:\/\/127\.0\.0\.1:\d+\/e\/local/, level: 'warn' },
    { command: 'daemon', args: ['daemon', '--listen', '127.0.0.1:0', '--dir', 'dashboards'], ready: /embedded API ready/, level: 'info' },
  ]) {
    it(`${command} waits for it, then starts (it exited 4, "still starting", when a token create held it)`, async () => {
      dir = await mkdtemp(join(tmpdir(), 'dashcd-serve-wait-'));
      await mkdir(join(dir, 'dashboards'));
      const data = join(dir, 'data');
      const moment = await acquireOwnership(data, { lasting: false });
      const child = spawn(process.execPath, [...serverNodeOptions(), MAIN_JS, ...args, '--data', data], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DASHCD_LOG_LEVEL: level } });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      try {
        await waitFor(async () => (output.includes('waiting for it') || child.exitCode !== null ? true : undefined), { what: 'serve to wait', timeoutMs: 30_000 });
        expect(output).toContain(`data dir in use by dashcd pid ${process.pid} (still starting); waiting for it`);
        await moment.release();
        await waitFor(async () => (ready.test(output) || child.exitCode !== null ? true : undefined), { what: `${command} to start`, timeoutMs: 30_000 });
        expect(output).toMatch(ready);
      } finally {
        child.kill('SIGTERM');
        await exited;
        await moment.release();
      }
    });
  }

  it('a daemon whose target is remote does not wait on a data dir it never takes (it waited ten minutes)', async () => {
    dir = await mkdtemp(join(tmpdir(), 'dashcd-serve-wait-'));
    await mkdir(join(dir, 'dashboards'));
    const data = join(dir, 'data');
    const starting = await acquireOwnership(data);
    const child = spawn(process.execPath, [MAIN_JS, 'daemon', '--target', 'http://127.0.0.1:9/e/x', '--listen', '127.0.0.1:0', '--data', data], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DASHCD_LOG_LEVEL: 'info', DT_API_TOKEN: 'dt0c01.UNUSED' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      await waitFor(async () => (output.includes('"msg":"daemon ready"') || child.exitCode !== null ? true : undefined), { what: 'the daemon to be ready', timeoutMs: 30_000 });
      expect(output).toContain('"msg":"daemon ready"');
      expect(output).not.toContain('waiting for it');
    } finally {
      child.kill('SIGTERM');
      await exited;
      await starting.release();
    }
  });
});
