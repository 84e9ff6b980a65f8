import { defineConfig } from 'vitest/config';

/**
 * Two projects: `main` runs in parallel; `serial` holds the tests that disturb shared machinery
 * (restarting PostgreSQL, SIGKILLing processes) and runs after `main`, one file at a time
 * (`npm test` runs both, in that order).
 */
export default defineConfig({
  test: {
    // Generous: some tests make hundreds of requests or run whole flows; on a loaded 2-core CI
    // machine 60 s was too close. A hung test still fails, just later.
    testTimeout: 180_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // One migrated PGlite template per run, copied by every test database (test/support/db.ts).
    globalSetup: ['test/support/pglite-template.setup.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'main',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
          exclude: ['**/*.serial.test.ts', '**/node_modules/**'],
        },
      },
      {
        extends: true,
        test: {
          name: 'serial',
          include: ['src/**/*.serial.test.ts', 'test/**/*.serial.test.ts'],
          fileParallelism: false,
        },
      },
    ],
  },
});
