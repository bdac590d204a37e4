import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // each test file gets its own SQLite file and PostgreSQL schema, so files run in parallel
    fileParallelism: true,
    reporters: ['default'],
  },
});
