import { EventEmitter } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { followLauncher, hasNodeOption, launchesServer, processRelauncher } from '../../../src/cli/relaunch.js';
import { serverNodeOptions } from '../../../src/server/server-node-options.js';
import { tempDirPerTest } from '../../helpers/scratch.js';

const proc = (execArgv: string[], env: Record<string, string | undefined> = {}) => ({
  execPath: process.execPath,
  execArgv,
  argv: ['main.js', 'serve'],
  env,
  signal: new AbortController().signal,
});

describe('relaunching a command with Node options', () => {
  let dir = '';
  tempDirPerTest('dashcd-relaunch-', (created) => (dir = created));

  it('relaunches the serve command only, whatever its other words: the child reads them against its flags', () => {
    expect(launchesServer(['serve'])).toBe(true);
    expect(launchesServer(['serve', '--port', '0', '--data', 'd'])).toBe(true);
    // Help or not is the child's to decide: `-h` here is the data folder's name, `--help` after `--` a positional.
    expect(launchesServer(['serve', '--data', '-h'])).toBe(true);
    expect(launchesServer(['serve', '--', '--help'])).toBe(true);
    expect(launchesServer(['serve', '--help'])).toBe(true);
    expect(launchesServer(['daemon'])).toBe(false);
    expect(launchesServer(['plan', 'serve'])).toBe(false);
    expect(launchesServer([])).toBe(false);
  });

  it('finds an option by name, with any value, in the process options or NODE_OPTIONS', () => {
    expect(hasNodeOption('--v8-pool-size=1', ['--v8-pool-size=3'], undefined)).toBe(true);
    expect(hasNodeOption('--v8-pool-size=1', [], '--max-old-space-size=512  --v8-pool-size=2')).toBe(true);
    expect(hasNodeOption('--v8-pool-size=1', ['--v8_pool_size=2'], undefined)).toBe(true);
    expect(hasNodeOption('--v8-pool-size=1', ['--v8-pool-size-x=1', '--inspect'], '--max-old-space-size=512')).toBe(false);
    expect(hasNodeOption('--v8-pool-size=1', [], undefined)).toBe(false);
  });

  it('does nothing when every option is set already (in either spelling), or when a debugger is asked for', () => {
    expect(processRelauncher(proc(['--v8-pool-size=4']))(['--v8-pool-size=1'])).toBeUndefined();
    expect(processRelauncher(proc(['--v8_pool_size=4']))(['--v8-pool-size=1'])).toBeUndefined();
    expect(processRelauncher(proc([], { NODE_OPTIONS: '--v8-pool-size=4' }))(['--v8-pool-size=1'])).toBeUndefined();
    // The debugger belongs to the process that runs the code.
    expect(processRelauncher(proc(['--inspect-brk=0']))(['--v8-pool-size=1'])).toBeUndefined();
    expect(processRelauncher(proc([], { NODE_OPTIONS: '--inspect' }))(['--v8-pool-size=1'])).toBeUndefined();
  });

  it('starts no child when asked to stop before it would run, and reports a clean stop', async () => {
    const controller = new AbortController();
    controller.abort(new Error('received SIGINT'));
    // A Node that does not exist: spawning it would fail the promise.
    const relaunch = processRelauncher({ ...proc([]), execPath: join(dir, 'no-node'), signal: controller.signal });
    await expect(relaunch(['--v8-pool-size=1'])).resolves.toBe(0);
  });

  it('runs the command again with only the missing options, and resolves with the child\'s exit code', async () => {
    const script = join(dir, 'main.mjs');
    await writeFile(script, "process.exit(process.execArgv.join(' ') === '--no-warnings --v8-pool-size=1' && process.argv[2] === 'serve' ? 3 : 9);\n");
    const relaunch = processRelauncher({ ...proc(['--no-warnings']), argv: [script, 'serve'] });
    await expect(relaunch(['--no-warnings', '--v8-pool-size=1'])).resolves.toBe(3);
  });

  it('sizes V8\'s pool to the cores the server\'s main thread and body workers leave, at least one, and starts the old generation at 64 MB', () => {
    const pool = (cores: number) => serverNodeOptions(cores).find((option) => option.startsWith('--v8-pool-size='));
    expect([1, 2, 4, 8, 16].map(pool)).toEqual(['--v8-pool-size=1', '--v8-pool-size=1', '--v8-pool-size=1', '--v8-pool-size=3', '--v8-pool-size=11']);
    for (const cores of [1, 2, 16]) expect(serverNodeOptions(cores)).toEqual([pool(cores), '--initial-old-space-size=64']);
  });
});

describe('a launched child following its launcher', () => {
  /** Just what followLauncher touches of a process: its environment, IPC channel, events and kill. */
  function fakeProcess(env: Record<string, string | undefined>, withChannel = true) {
    const events = new EventEmitter();
    const unrefs: number[] = [];
    const kills: Array<[number, string]> = [];
    const proc = Object.assign(events, {
      env,
      pid: 4242,
      channel: withChannel ? { unref: () => unrefs.push(1) } : undefined,
      kill: (pid: number, signal: string) => kills.push([pid, signal]),
    });
    return { proc: proc as unknown as NodeJS.Process, events, unrefs, kills };
  }

  it('does nothing in a process nobody launched', () => {
    const stops: number[] = [];
    expect(followLauncher(fakeProcess({}).proc, () => stops.push(1))).toBe(false);
    expect(followLauncher(fakeProcess({ DASHCD_LAUNCHED: '1' }, false).proc, () => stops.push(1))).toBe(false);
  });

  it('stops cleanly when asked, dies with its launcher, never keeps itself alive for it, and hands no marker down', () => {
    const env: Record<string, string | undefined> = { DASHCD_LAUNCHED: '1', PATH: '/bin' };
    const { proc, events, unrefs, kills } = fakeProcess(env);
    let stops = 0;
    expect(followLauncher(proc, () => (stops += 1))).toBe(true);
    expect(env).toEqual({ PATH: '/bin' });
    expect(unrefs).toHaveLength(1);
    events.emit('message', 'something else');
    expect(stops).toBe(0);
    events.emit('message', 'stop');
    expect(stops).toBe(1);
    expect(kills).toEqual([]);
    events.emit('disconnect');
    expect(kills).toEqual([[4242, 'SIGKILL']]);
  });
});
