import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './test/support/sequencer.ts';

/**
 * The pure tier (`npm run test:unit`): test files beside the code that open no database, start no
 * app, process or browser and run no external checker. Found by what the file uses, so a new test
 * lands in the right tier by itself; `npm test` runs these too, as part of `main`.
 */
const NOT_UNIT =
  /describeEachDb|startTestApp|startIssuingApp|openTestDb|support\/(db|app|issuing|processes|browser)\.ts|createPglite|openDatabase|openPglite|startServer|check-sii-xml|runCheckSiiXml|node:child_process|\.serial\.test/;
const unitFiles = ['src', 'packages']
  .flatMap((dir) => readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((f) => `${dir}/${f}`))
  .filter((f) => f.endsWith('.test.ts') && !f.includes('node_modules') && !NOT_UNIT.test(f) && !NOT_UNIT.test(readFileSync(f, 'utf8')));

/**
 * Test files that need a process of their own: one replaces a module (`vi.mock`), which is only
 * sound when no earlier file in the same process has loaded it; the logo decoder's unit test bounds
 * the event loop thread's busiest stretch (its forks included), which a long-lived worker's larger
 * heap would lengthen with a collection's pause or a slower fork (docs/performance.md, "Seventh
 * round"). Every other file shares its worker process with the files before it (`isolate: false`),
 * so the module graph, PGlite's compiled WebAssembly, the template and the pool's databases are paid
 * once per worker, not once per file (docs/performance.md, "The test suite").
 */
const ISOLATED = ['src/modules/dte/dte.create.test.ts', 'src/pdf/logo.test.ts'];

/**
 * Projects: `main` runs in parallel; `serial` holds the tests that disturb shared machinery
 * (restarting PostgreSQL, SIGKILLing processes) and runs after `main`, one file at a time
 * (`npm test` runs both, in that order); `unit` is the pure subset of `main`, for a quick loop.
 */
export default defineConfig({
  test: {
    // A hang fails within two minutes instead of three. One minute was tried: with three workers on
    // 2 cores, three ordinary tests that start processes ran past it (docs/performance.md, "The
    // test suite"). Whole flows (test/e2e, the browser tests) set their own, longer timeouts.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Files that start processes, browsers or whole flows first (test/support/sequencer.ts).
    sequence: { sequencer: SlowFirstSequencer },
    // One worker more than cores (vitest's default is one fewer: on 2 cores, one file at a time). Files
    // wait on child processes, browsers, PostgreSQL and checkers much of their time: with two workers
    // on 2 cores the test processes used 1.49 cores, with three 1.74 (docs/performance.md, "Sixth
    // round"). VITEST_MAX_WORKERS overrides it.
    maxWorkers: Number(process.env.VITEST_MAX_WORKERS ?? availableParallelism() + 1),
    // One migrated PGlite template per run, copied by every test database (test/support/db.ts); on
    // PostgreSQL, the run's name for its test databases, and their cleanup (pg-template.ts).
    globalSetup: ['test/support/pglite-template.setup.ts', 'test/support/pg-template.setup.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'main',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
          exclude: ['**/*.serial.test.ts', '**/node_modules/**', ...ISOLATED],
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: 'isolated', include: ISOLATED },
      },
      {
        extends: true,
        // Pure files only: no module replaced, no database in the heap (the logo file stays in this tier).
        test: { name: 'unit', include: unitFiles, testTimeout: 20_000, isolate: false },
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
