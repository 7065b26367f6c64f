import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAppendHandles } from '../../../src/archive/append-handles.js';
import { budgetFs } from '../../helpers/budget-fs.js';
import { tempDirPerTest } from '../../helpers/scratch.js';

describe('append handles', () => {
  let dir: string;
  tempDirPerTest('dashcd-append-', (created) => (dir = created));

  it('appends nothing more to a file after an append to it failed, so a line cut short stays its last', async () => {
    const { fs, setBudget } = budgetFs();
    const handles = createAppendHandles(fs);
    const file = join(dir, 'events.jsonl');
    const other = join(dir, 'other.jsonl');
    await handles.appendDurable(file, '{"a":1}\n');
    setBudget(4);
    await expect(handles.appendDurable(file, '{"b":2}\n')).rejects.toMatchObject({ code: 'ENOSPC' });
    // Room again (another file's temp removed, say): a later page's lines must still not follow the torn one.
    setBudget(Number.POSITIVE_INFINITY);
    await expect(handles.appendDurable(file, '{"c":3}\n')).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(await readFile(file, 'utf8')).toBe('{"a":1}\n{"b"');
    // Other files go on.
    await handles.appendDurable(other, '{"d":4}\n');
    expect(await readFile(other, 'utf8')).toBe('{"d":4}\n');
    await handles.closeAll();
  });
});
