import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transpileBench } from '../helpers/bench-build.js';

const run = promisify(execFile);
const repo = join(import.meta.dirname, '..', '..');

describe('bench compare-put: PUT load alternating between builds', () => {
  let dir = '';
  let builds: [string, string] = ['', ''];
  const tool = (): string => join(builds[0], 'bench/compare-put.js');

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dashcd-compare-put-'));
    builds = [join(dir, 'a'), join(dir, 'b')];
    await transpileBench(repo, builds[0]);
    await cp(builds[0], builds[1], { recursive: true, verbatimSymlinks: true });
  }, 120_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('measures every build after a warm-up, in alternation, and prints each build’s medians', async () => {
    const { stdout } = await run(process.execPath, [tool(), '--smoke', ...builds], { cwd: repo, maxBuffer: 4 << 20 });
    for (const build of builds) {
      expect(stdout).toContain(`warm-up: ${build}: `);
      expect(stdout).toContain(`round 1: ${build}: `);
      const median = new RegExp(`^${build}: median (\\d+) req/s, p50 [\\d.]+ ms, p99 [\\d.]+ ms over 1 runs$`, 'm').exec(stdout);
      expect(Number(median?.[1]), stdout).toBeGreaterThan(0);
    }
  }, 300_000);

  it('refuses a bad command line with what is wrong, its usage and exit 64, before starting anything', async () => {
    const cases: Array<[string[], string]> = [
      [[builds[0]], 'name two or more dist-bench directories to compare'],
      [['--rounds', '0', ...builds], '--rounds must be a whole number of at least 1'],
      [['--seconds', 'x', ...builds], '--seconds must be a whole number of at least 1'],
      [['--colour', ...builds], "Unknown option '--colour'"],
      [[builds[0], join(dir, 'nowhere')], `${join(dir, 'nowhere')} is not a compiled bench`],
    ];
    for (const [args, problem] of cases) {
      const failure = await run(process.execPath, [tool(), ...args], { cwd: repo }).then(
        () => undefined,
        (error: unknown) => error as { code?: number; stderr?: string },
      );
      expect(failure?.code, args.join(' ')).toBe(64);
      expect(failure?.stderr).toContain(`compare-put: ${problem}`);
      expect(failure?.stderr).toContain('usage: node dist-bench/bench/compare-put.js');
    }
    const help = await run(process.execPath, [tool(), '--help'], { cwd: repo });
    expect(help.stdout).toContain('Exit codes: 0 compared; 64 a usage error');
  });
});
