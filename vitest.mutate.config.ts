import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The suite Stryker runs against each mutant (`npm run mutate`): unit tests only. Integration and e2e tests start
 * servers and child processes, which would make every mutant cost seconds and, on a busy 2-core machine, time out
 * at random. Everything the mutated modules do is reachable from test/unit.
 *
 * `DASHCD_MUTATE_EXAMPLES_ONLY=1` leaves out the property tests too: they run a hundred generated cases over the
 * corpus for every mutant they reach, which on a loaded machine makes a run of the plan's array alignment take
 * hours. Mutants only they would kill then count as survived, so the score is a lower bound.
 */
const examplesOnly = process.env.DASHCD_MUTATE_EXAMPLES_ONLY === '1';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts'],
    exclude: [...configDefaults.exclude, '.stryker-tmp/**', ...(examplesOnly ? ['test/unit/**/*.property.test.ts'] : [])],
    setupFiles: ['test/helpers/byte-equality.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
