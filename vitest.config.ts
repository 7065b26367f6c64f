import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Stryker's sandbox copies of the repository (npm run mutate).
    exclude: [...configDefaults.exclude, '.stryker-tmp/**'],
    // Byte arrays compared as bytes, not index by index (seconds per MB).
    setupFiles: ['test/helpers/byte-equality.ts'],
    // Timeouts only end a hung test: tests wait on conditions, never on time, and the suite must pass on a 2-core
    // machine that something else keeps busy (a whole-suite run under load 20 took 30–60 s for single tests).
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // Integration tests spawn servers and child processes; two workers match the 2-core machines.
    maxWorkers: 2,
  },
});
