import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { commands } from '../../src/cli/commands/index.js';
import { runCli } from '../../src/cli/run.js';
import { silentLogger } from '../../src/lib/logger.js';
import { createProject, type Project } from '../helpers/cli.js';
import { dashboardYaml, freePort, waitFor } from '../helpers/daemon.js';
import { api } from '../helpers/server.js';

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

/** A stdout that says it is a terminal, as `npm start` in a shell has. */
function terminal(): { stream: Writable & { isTTY: boolean }; text(): string } {
  const chunks: string[] = [];
  const stream = Object.assign(
    new Writable({
      write(chunk, _encoding, done) {
        chunks.push(String(chunk));
        done();
      },
    }),
    { isTTY: true },
  );
  return { stream, text: () => chunks.join('') };
}

describe('dashcd daemon at a terminal', () => {
  it('prints readable log lines and a banner whose ready-to-paste curl works', async () => {
    project = await createProject({ 'dashboards/web.yaml': dashboardYaml('Web') });
    const port = await freePort();
    const out = terminal();
    const stop = new AbortController();
    const io = { stdout: out.stream, stderr: terminal().stream, env: { NO_COLOR: '1' }, cwd: project.root, log: silentLogger(), signal: stop.signal };
    const running = runCli(commands, ['daemon', '--listen', `127.0.0.1:${port}`, '--poll', '60s'], io);

    const banner = await waitFor(() => /curl -s -H "Authorization: Api-Token (\S+)" (\S+)/.exec(out.text()), { what: 'the banner' });
    await waitFor(() => out.text().includes('reconcile finished'), { what: 'the first pass' });
    const listed = await api(banner[2] ?? '', { token: banner[1] });
    expect(listed.status).toBe(200);
    expect((listed.json as { dashboards: { name: string }[] }).dashboards.map((d) => d.name)).toEqual(['Web v1']);
    stop.abort();
    expect(await running).toBe(0);

    const lines = out.text().split('\n').filter((line) => /^\d\d:\d\d:\d\d\.\d{3} /.test(line));
    expect(lines.find((line) => line.includes('dashboard created'))).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}\[reconcile\] dashboard created id=\S+ file=dashboards\/web\.yaml action=create$/);
    expect(out.text()).not.toMatch(/^\{"level"/m);
    expect(out.text()).toContain(`Status:   http://127.0.0.1:${port}/status`);
    // The token is in the banner for the person at the terminal, and nowhere else.
    expect(out.text().split(banner[1] ?? '').length - 1).toBe(1);
  });
});
