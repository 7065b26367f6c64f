import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The suite Stryker runs against each mutant (`npm run mutate`): unit tests only. Integration and e2e tests start
 * servers and child processes, which would make every mutant cost seconds and, on a busy 2-core machine, time out
 * at random. Everything the mutated modules do is reachable from test/unit.
 */
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts'],
    exclude: [...configDefaults.exclude, '.stryker-tmp/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
