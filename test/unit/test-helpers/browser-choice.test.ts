import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseBrowser } from '../../helpers/browser.js';
import { tempDirPerTest } from '../../helpers/scratch.js';

let scratch = '';
tempDirPerTest('dashcd-browser-', (made) => (scratch = made));
const dir = (): string => scratch;

async function fakeBrowser(folder: string, name: string): Promise<string> {
  await mkdir(folder, { recursive: true });
  const path = join(folder, name);
  await writeFile(path, '#!/bin/sh\n');
  await chmod(path, 0o755);
  return path;
}

describe('the browser the console tests drive', () => {
  it('is DASHCD_CHROMIUM when set, before any system browser', async () => {
    const chosen = await fakeBrowser(join(dir(), 'own'), 'my-chrome');
    const system = join(dir(), 'bin');
    await fakeBrowser(system, 'chromium');
    expect(await chooseBrowser({ DASHCD_CHROMIUM: chosen, PATH: system })).toEqual({ source: 'DASHCD_CHROMIUM', path: chosen });
  });

  it('names DASHCD_CHROMIUM when it points at nothing runnable, rather than falling back', async () => {
    await expect(chooseBrowser({ DASHCD_CHROMIUM: join(dir(), 'missing'), PATH: '' })).rejects.toThrow(/DASHCD_CHROMIUM=.*missing is not an executable/);
  });

  it('is a system Chromium or Chrome on PATH next, in that order of names', async () => {
    const first = join(dir(), 'a');
    const second = join(dir(), 'b');
    const chrome = await fakeBrowser(first, 'google-chrome');
    const chromium = await fakeBrowser(second, 'chromium');
    expect(await chooseBrowser({ PATH: `${first}:${second}` })).toEqual({ source: 'system', path: chromium });
    expect(await chooseBrowser({ PATH: first })).toEqual({ source: 'system', path: chrome });
  });

  it('skips a file on PATH that is not executable', async () => {
    const bin = join(dir(), 'bin');
    await mkdir(bin);
    await writeFile(join(bin, 'chromium'), 'not a program');
    const choice = await chooseBrowser({ PATH: bin });
    expect(choice.source).toBe('packaged');
  });

  it('is the packaged headless Chromium when the machine has none, an executable file', async () => {
    const choice = await chooseBrowser({ PATH: join(dir(), 'empty') });
    expect(choice.source).toBe('packaged');
    expect(choice.path).not.toBe('');
    await expect(chooseBrowser({ DASHCD_CHROMIUM: choice.path, PATH: '' })).resolves.toEqual({ source: 'DASHCD_CHROMIUM', path: choice.path });
  });
});
