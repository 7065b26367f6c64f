import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasNodeOption, processRelauncher } from '../../src/cli/relaunch.js';
import { serverNodeOptions } from '../../src/server/server-node-options.js';
import { tempDirPerTest } from '../helpers/scratch.js';

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

  it('finds an option by name, with any value, in the process options or NODE_OPTIONS', () => {
    expect(hasNodeOption('--v8-pool-size=1', ['--v8-pool-size=3'], undefined)).toBe(true);
    expect(hasNodeOption('--v8-pool-size=1', [], '--max-old-space-size=512  --v8-pool-size=2')).toBe(true);
    expect(hasNodeOption('--v8-pool-size=1', ['--v8-pool-size-x=1', '--inspect'], '--max-old-space-size=512')).toBe(false);
    expect(hasNodeOption('--v8-pool-size=1', [], undefined)).toBe(false);
  });

  it('does nothing when every option is set already, or in the launched child itself', () => {
    expect(processRelauncher(proc(['--v8-pool-size=4']))(['--v8-pool-size=1'])).toBeUndefined();
    expect(processRelauncher(proc([], { NODE_OPTIONS: '--v8-pool-size=4' }))(['--v8-pool-size=1'])).toBeUndefined();
    // A child that somehow lacks the option never launches again.
    expect(processRelauncher(proc([], { DASHCD_LAUNCHED: '1' }))(['--v8-pool-size=1'])).toBeUndefined();
  });

  it('runs the command again with only the missing options, and resolves with the child\'s exit code', async () => {
    const script = join(dir, 'main.mjs');
    await writeFile(script, "process.exit(process.execArgv.join(' ') === '--no-warnings --v8-pool-size=1' && process.argv[2] === 'serve' ? 3 : 9);\n");
    const relaunch = processRelauncher({ ...proc(['--no-warnings']), argv: [script, 'serve'] });
    await expect(relaunch(['--no-warnings', '--v8-pool-size=1'])).resolves.toBe(3);
  });

  it('sizes V8\'s pool to the cores the server\'s main thread and body workers leave, at least one', () => {
    expect(serverNodeOptions(1)).toEqual(['--v8-pool-size=1']);
    expect(serverNodeOptions(2)).toEqual(['--v8-pool-size=1']);
    expect(serverNodeOptions(4)).toEqual(['--v8-pool-size=1']);
    expect(serverNodeOptions(8)).toEqual(['--v8-pool-size=3']);
    expect(serverNodeOptions(16)).toEqual(['--v8-pool-size=11']);
  });
});
