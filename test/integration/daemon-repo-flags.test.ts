import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { runDashcd } from '../helpers/cli.js';
import { tempDirPerTest } from '../helpers/scratch.js';

let cwd: string;
tempDirPerTest('dashcd-repo-flags-', (created) => (cwd = created));

const daemon = (args: string[]): ReturnType<typeof runDashcd> => runDashcd(['daemon', '--listen', '127.0.0.1:0', ...args], { cwd, env: {} });

describe('dashcd daemon --repo flags', () => {
  it.each([
    [['--branch', 'main'], '--branch needs --repo'],
    [['--repo', 'https://h/r.git', '--branch', 'main', '--tag-pattern', 'v*'], '--branch and --tag-pattern exclude each other'],
    [['--repo', 'https://h/r.git', '--path', '../up'], '--path must be a folder inside the repository'],
    [['--repo', 'https://h/r.git', '--path', '.'], '--path must be a folder inside the repository'],
    [['--repo', 'https://h/r.git', '--branch', 'a..b'], "--branch 'a..b' is not a valid git ref name"],
    [['--repo', 'https://h/r.git', '--dir', 'dashboards'], 'name the folder inside the repository with --path'],
    [['--allow-target', 'T=https://h'], '--allow-target needs --repo'],
    [['--repo', 'https://h/r.git', '--allow-target', 'https://h'], '--allow-target must be VARIABLE=URL'],
    [['--repo', 'https://h/r.git', '--allow-target', 'DASHCD_WEBHOOK_SECRET=https://h'], "the daemon's own DASHCD_* variables can never be target tokens"],
    [['--repo', 'https://h/r.git', '--allow-target', 'T=https://u:p@h'], "'https://u:p@h' is not an http(s) environment URL without credentials"],
    [['--max-environments', '5'], '--max-environments needs --repo'],
    [['--repo', 'https://h/r.git', '--max-environments', '101'], '--max-environments must be at most 100, got 101'],
    [['--repo', 'https://h/r.git', '--max-environments', '0'], "--max-environments must be an integer of at least 1, got '0'"],
  ])('%j is a usage error (64): %s', async (args, message) => {
    const result = await daemon(args);
    expect(result.code).toBe(64);
    expect(result.stderr).toContain(message);
  });

  it.each(['https://me:hunter2@example.com/r.git', 'http://hunter2@example.com/r.git', 'https://me%3Ahunter2@example.com/r.git', 'me:hunter2@example.com:org/r.git'])(
    'credentials in --repo %s exit 64 without cloning anything or printing them',
    async (url) => {
      const result = await daemon(['--repo', url]);
      expect(result.code).toBe(64);
      expect(result.stderr).toContain('DASHCD_GIT_TOKEN');
      expect(result.stderr + result.stdout).not.toContain('hunter2');
      expect(await readdir(cwd)).toEqual([]);
    },
  );

  it.each(['0', 'many', '-5', '1.5'])('DASHCD_PASS_CHUNK_FILES=%s is a usage error (64) naming the variable, before anything starts', async (value) => {
    const result = await runDashcd(['daemon', '--listen', '127.0.0.1:0'], { cwd, env: { DASHCD_PASS_CHUNK_FILES: value } });
    expect(result.code).toBe(64);
    expect(result.stderr).toContain(`DASHCD_PASS_CHUNK_FILES must be a whole number of files from 1 to 9999999, got '${value}'`);
    expect(await readdir(cwd)).toEqual([]);
  });
});
