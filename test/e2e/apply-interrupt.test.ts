import { createServer, type Server, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/logger.js';
import { createProject, runDashcd, type Project } from '../helpers/cli.js';
import { markdownDashboard } from '../helpers/dashboards.js';

const COUNT = 30;
const files = Object.fromEntries(
  Array.from({ length: COUNT }, (_, i) => [`dashboards/d${i}.yaml`, markdownDashboard({ name: `D${i}`, owner: 'team@example.com', markdown: `dashboard ${i}` })]),
);

let project: Project | undefined;
let hanging: Server | undefined;
afterEach(async () => {
  await project?.cleanup();
  await new Promise((resolve) => (hanging ? hanging.close(resolve) : resolve(undefined)));
  project = undefined;
  hanging = undefined;
});

/** A logger that calls `onLine` with each JSON line apply logs. */
const watchingLogger = (onLine: (line: string) => void) =>
  createLogger({
    level: 'info',
    destination: new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n')) if (line) onLine(line);
        done();
      },
    }),
  });

describe('Ctrl-C during apply', () => {
  it('once writes have begun: the write in flight finishes, no other starts, exit 130 says how many were not started, and the next apply finishes them', async () => {
    project = await createProject(files);
    const data = join(project.root, '.dashcd');
    const stop = new AbortController();
    // The first write's log line is the Ctrl-C: the stop arrives while the writes run.
    const log = watchingLogger((line) => {
      if (line.includes('"msg":"dashboard created"')) stop.abort(new Error('received SIGINT'));
    });
    const first = await runDashcd(['apply', '--data', data, '--concurrency', '1'], { cwd: project.root, env: { DASHCD_LOG_LEVEL: 'info' }, log, signal: stop.signal });
    expect(first.code, first.stderr).toBe(130);
    const created = Number(/: (\d+) created, .* 0 failed, \d+ not started in /.exec(first.stdout)?.[1]);
    const notStarted = Number(/interrupted: (\d+) changes were not started/.exec(first.stderr)?.[1]);
    // The summary says so too: "Applied to …" read as a finished run.
    expect(first.stdout).toMatch(new RegExp(`^Interrupted applying to .*: ${created} created, .*, 0 failed, ${notStarted} not started in `, 'm'));
    expect(first.stdout).not.toContain('Applied to');
    expect(created).toBeGreaterThanOrEqual(1);
    expect(notStarted).toBeGreaterThan(0);
    expect(created + notStarted).toBe(COUNT);
    // Nothing was cut midway: every write that started is live, and the rest come with the next run.
    const again = await runDashcd(['apply', '--data', data], { cwd: project.root });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(`: ${notStarted} created, 0 updated, ${created} unchanged, 0 deleted, 0 failed in `);
  });

  it('before writes begin (the plan waiting on a target that does not answer): exit 130, interrupted, nothing written', async () => {
    project = await createProject(files);
    const stop = new AbortController();
    const sockets: Socket[] = [];
    hanging = createServer((socket) => {
      sockets.push(socket);
      stop.abort(new Error('received SIGINT'));
    });
    await new Promise<void>((resolve) => hanging?.listen(0, '127.0.0.1', resolve));
    const { port } = hanging.address() as { port: number };
    try {
      const result = await runDashcd(['apply', '--target', `http://127.0.0.1:${port}/e/x`], { cwd: project.root, env: { DT_API_TOKEN: 'dt0c01.SILENT' }, signal: stop.signal });
      expect(result.code, result.stderr).toBe(130);
      expect(result.stderr).toContain('dashcd apply: interrupted (received SIGINT)');
      expect(result.stdout).not.toContain('Applied to');
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });
});
