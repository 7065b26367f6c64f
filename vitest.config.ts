import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const EXCLUDE = [...configDefaults.exclude, '.stryker-tmp/**'];

/**
 * Test files that replace modules (`vi.mock`): a mock only takes hold in a fresh module graph, so these run
 * isolated. Found by reading the files, so a new one needs no entry here.
 */
const MOCKING = readdirSync('test', { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts') && /\bvi\.(do)?mock\(/.test(readFileSync(join('test', file), 'utf8')))
  .map((file) => `test/${file}`);

/**
 * The files that take longest (measured, tens of seconds each on the 2-core machine), started first so that no
 * worker is left running one alone at the end. Vitest orders later runs by the durations it cached; on a fresh
 * clone it has none, and would start the largest files first, which are not these.
 */
const LONGEST = [
  'test/integration/bench-smoke.test.ts',
  'test/e2e/daemon-git.test.ts',
  'test/integration/archive-crash.test.ts',
  'test/e2e/daemon-prune.test.ts',
  'test/e2e/daemon-git-ownership.test.ts',
  'test/e2e/daemon-chunked-pass.test.ts',
  'test/e2e/documents-pipeline.test.ts',
  'test/integration/server-crash.test.ts',
  'test/integration/server-body-pool.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification): number => {
      const at = LONGEST.findIndex((file) => spec.moduleId.endsWith(file));
      return at === -1 ? LONGEST.length : at;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    // Byte arrays compared as bytes, not index by index (seconds per MB).
    setupFiles: ['test/helpers/byte-equality.ts'],
    // Temporary files on tmpfs where the machine has one with room (memory-temp-dir.ts says why).
    globalSetup: ['test/helpers/memory-temp-dir.ts'],
    // Timeouts only end a hung test: tests wait on conditions, never on time, and the suite must pass on a 2-core
    // machine that something else keeps busy (a whole-suite run under load 20 took 30–60 s for single tests).
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // Three workers on the 2-core machines: most integration and e2e time is spent waiting on the servers and child
    // processes a test starts (and on fsync), so a third file overlaps that wait (first run 172 s → 140 s measured).
    maxWorkers: 3,
    sequence: { sequencer: LongestFirst },
    projects: [
      { extends: true, test: { name: 'mocks', include: MOCKING, exclude: EXCLUDE, isolate: true } },
      // Test files share their worker's module graph: importing src/ afresh for each file took a third of the run.
      { extends: true, test: { name: 'tests', include: ['test/**/*.test.ts'], exclude: [...EXCLUDE, ...MOCKING], isolate: false } },
    ],
  },
});
