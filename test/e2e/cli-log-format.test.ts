import { afterEach, describe, expect, it } from 'vitest';
import { createProject, runDashcdChild, startDashcdChild, type DashcdChild, type Project } from '../helpers/cli.js';

/*
 * A command's log lines on stderr, where CI shows them between its readable output: JSON lines there (stderr is a
 * pipe in CI) read as noise beside a plan. A server's log goes to a log collector, which takes JSON lines.
 */

let project: Project | undefined;
let serve: DashcdChild | undefined;
afterEach(async () => {
  await serve?.stop();
  await project?.cleanup();
  serve = undefined;
  project = undefined;
});

const READABLE = /^\d\d:\d\d:\d\d\.\d{3} INFO {2}\[events-pull\] pull run started from=/m;

describe('log lines on stderr', () => {
  it('a command writes readable lines when stderr is no terminal (a CI log); DASHCD_LOG_FORMAT=json asks for JSON lines', async () => {
    project = await createProject();
    const readable = await runDashcdChild(['events', 'pull', '--since', '1h'], { cwd: project.root, env: { DASHCD_LOG_LEVEL: 'info' } });
    expect(readable.code, readable.stderr).toBe(0);
    expect(readable.stderr).toMatch(READABLE);
    expect(readable.stderr).not.toContain('"level"');
    const json = await runDashcdChild(['events', 'pull', '--since', '1h'], { cwd: project.root, env: { DASHCD_LOG_LEVEL: 'info', DASHCD_LOG_FORMAT: 'json' } });
    expect(json.code, json.stderr).toBe(0);
    const lines = json.stderr.split('\n').filter((line) => line !== '');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ level: 30, component: 'events-pull' });
  });

  it('serve, whose log a collector reads, writes JSON lines when stderr is no terminal', async () => {
    project = await createProject();
    serve = await startDashcdChild(['serve', '--port', '0'], { cwd: project.root, env: { DASHCD_LOG_LEVEL: 'info' }, ready: /dashcd serving/ });
    const line = serve.output().split('\n').find((text) => text.includes('dashcd API listening')) ?? '';
    expect(JSON.parse(line)).toMatchObject({ level: 30, msg: 'dashcd API listening' });
  });
});
