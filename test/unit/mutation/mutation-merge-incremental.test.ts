import { describe, expect, it } from 'vitest';
import { mergeIncremental } from '../../mutation/merge-incremental.mjs';

/* Two runs as Stryker writes them: test ids are numbers local to each run. */

const at = (line: number) => ({ start: { line, column: 1 }, end: { line, column: 9 } });

const runA = {
  schemaVersion: '1.0',
  files: {
    'src/a.ts': { language: 'typescript', source: 'a v1', mutants: [{ id: '0', mutatorName: 'X', status: 'Killed', location: at(1), coveredBy: ['0', '1'], killedBy: ['1'] }] },
    'src/b.ts': { language: 'typescript', source: 'b v1', mutants: [{ id: '1', mutatorName: 'Y', status: 'Survived', location: at(2), coveredBy: ['0'] }] },
  },
  testFiles: { 'test/a.test.ts': { source: 'tests v1', tests: [{ id: '0', name: 'a one' }, { id: '1', name: 'a two' }] } },
};

const runB = {
  schemaVersion: '1.0',
  files: {
    'src/b.ts': { language: 'typescript', source: 'b v2', mutants: [{ id: '0', mutatorName: 'Y', status: 'Killed', location: at(2), coveredBy: ['0', '1'], killedBy: ['1'] }] },
  },
  testFiles: {
    'test/b.test.ts': { source: 'b tests', tests: [{ id: '0', name: 'b one' }] },
    'test/a.test.ts': { source: 'tests v2', tests: [{ id: '1', name: 'a one' }] },
  },
};

describe('mergeIncremental', () => {
  it('keeps each source file from the last run that mutated it, with tests renumbered and referred to by name', () => {
    expect(mergeIncremental([runA, runB])).toStrictEqual({
      schemaVersion: '1.0',
      files: {
        // From run A; "a two" is gone from the last version of its test file, so the reference is dropped.
        'src/a.ts': { language: 'typescript', source: 'a v1', mutants: [{ id: '0', mutatorName: 'X', status: 'Killed', location: at(1), coveredBy: ['0'], killedBy: [] }] },
        // From run B, where "b one" was 0 and "a one" was 1.
        'src/b.ts': { language: 'typescript', source: 'b v2', mutants: [{ id: '0', mutatorName: 'Y', status: 'Killed', location: at(2), coveredBy: ['1', '0'], killedBy: ['0'] }] },
      },
      testFiles: {
        'test/a.test.ts': { source: 'tests v2', tests: [{ id: '0', name: 'a one' }] },
        'test/b.test.ts': { source: 'b tests', tests: [{ id: '1', name: 'b one' }] },
      },
    });
  });

  it('leaves a single run as it was, apart from test ids, and an empty list empty', () => {
    expect(mergeIncremental([runA])).toStrictEqual(runA);
    expect(mergeIncremental([])).toStrictEqual({ files: {}, testFiles: {} });
  });
});
