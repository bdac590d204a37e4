import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // each test file gets its own SQLite files and PostgreSQL schema or databases (test/helpers/stores.ts), so files run in parallel
    fileParallelism: true,
    // vitest's default is one worker less than the cores, which on a 2-core machine (CI's) is one file at a time; most
    // files wait on processes, sockets and databases rather than compute, so two at once took the suite from about
    // 18 minutes to 9.6 (README.md#tests)
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: ['default'],
  },
});
