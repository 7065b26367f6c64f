import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsImportCommand } from '../../src/cli/commands/events-import.js';
import { eventsPullCommand } from '../../src/cli/commands/events-pull.js';
import { runDashcd, type CliResult } from '../helpers/cli.js';
import { generateEvents, renderEvent } from '../helpers/events-feed-server.js';

const DAY = 86_400_000;
const PROJECT = `environments:
  dev:
  prod:
  remote:
    target: https://remote.example.com
    tokenEnv: REMOTE_TOKEN
groups:
  production:
    environments: [dev, prod]
`;

/**
 * `events pull` in a project whose dashcd.yaml declares environments: `--env` chooses the environment the events come
 * from, as it does for every other command, and its archive folder is that environment's name. (It used to name the
 * folder only: `--env dev` pulled the embedded `local` environment into `events-archive/dev`.)
 */
describe('dashcd events pull with environments in dashcd.yaml', () => {
  let dir = '';
  const dashcd = (...argv: string[]): Promise<CliResult> =>
    runDashcd(argv, { cwd: dir, env: { DASHCD_RETRY_DEADLINE: '1s' }, commands: [eventsPullCommand, eventsImportCommand] });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dashcd-events-envs-'));
    await mkdir(join(dir, 'dashboards'));
    await writeFile(join(dir, 'dashcd.yaml'), PROJECT);
    const now = Date.now();
    const events = generateEvents({ count: 120, from: now - 2 * DAY, to: now - 1000, openShare: 0 });
    await writeFile(join(dir, 'prod-events.jsonl'), `${events.map((event) => renderEvent(event)).join('\n')}\n`);
    expect(await dashcd('events', 'import', '--data', '.dashcd', '--env', 'prod', 'prod-events.jsonl')).toMatchObject({ code: 0 });
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('pulls the environment --env names into its own folder, and another environment’s events into another', async () => {
    const prod = await dashcd('events', 'pull', '--env', 'prod', '--since', '7d');
    expect(prod.stderr).toBe('');
    expect(prod.code).toBe(0);
    expect(prod.stdout).toMatch(/^120 new event versions in .*events-archive\/prod \(120 fetched/);
    const dev = await dashcd('events', 'pull', '--env', 'dev', '--since', '7d');
    expect(dev.code).toBe(0);
    expect(dev.stdout).toMatch(/^0 new event versions in .*events-archive\/dev \(0 fetched/);
    expect((await readdir(join(dir, 'events-archive'))).sort()).toEqual(['.gitignore', 'dev', 'prod']);
  });

  it('refuses to choose for the user, listing the environments, and pulls nothing (exit 64)', async () => {
    const none = await dashcd('events', 'pull');
    expect(none.code).toBe(64);
    expect(none.stderr).toContain('events pull acts on one environment: choose it with --env NAME. Declared in dashcd.yaml:');
    expect(none.stderr).toMatch(/ {2}prod \(group production\) {2}embedded \/e\/prod/);
    expect(none.stderr).not.toContain('--all-envs');
  });

  it('asks a remote environment’s token variable for the scope the feed needs, and sends nothing without it (exit 4)', async () => {
    const result = await dashcd('events', 'pull', '--env', 'remote');
    expect(result.code).toBe(4);
    expect(result.stderr).toContain("REMOTE_TOKEN is not set: remote's target (https://remote.example.com, from dashcd.yaml)");
    expect(result.stderr).toContain('set it to a token with scope DataExport');
  });

  it.each([
    [['--env', 'production'], 'events pull acts on one environment; --env chose dev, prod'],
    [['--env', 'dev', '--env', 'prod'], 'events pull acts on one environment; --env chose dev, prod'],
    [['--env', 'prd'], 'unknown environment prd — did you mean prod?'],
    [['--env', 'prod', '--target', 'http://127.0.0.1:9'], '--target and environments exclude each other'],
  ])('refuses %j with a usage error naming why (exit 64)', async (flags, message) => {
    const result = await dashcd('events', 'pull', ...flags);
    expect(result.code).toBe(64);
    expect(result.stderr).toContain(message);
  });
});
