import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Stryker's sandbox copies of the repository (npm run mutate).
    exclude: [...configDefaults.exclude, '.stryker-tmp/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration tests spawn servers and child processes; two workers match the 2-core machines.
    maxWorkers: 2,
  },
});
