import { defineConfig } from "vitest/config";

/**
 * SLUICE_TEST_DB picks the database tests run on: `pglite` (the default), `postgres`, or both
 * (`pglite,postgres`, what test/run.mjs sets). Both means two projects in one run: the whole suite
 * on PGlite and the storage suites (test/integration) on PostgreSQL, scheduled together.
 */
const kinds = (process.env.SLUICE_TEST_DB ?? "pglite").split(",");
const PG_URL = process.env.SLUICE_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // PGlite is ~0.5 GB per instance: keep parallelism modest on a 2-core machine.
    maxWorkers: 2,
    pool: "forks",
    projects:
      kinds.length > 1
        ? [
            { extends: true, test: { name: "pglite", env: { SLUICE_TEST_DB: "pglite" } } },
            {
              extends: true,
              test: {
                name: "postgres",
                include: ["test/integration/**/*.test.ts"],
                env: { SLUICE_TEST_DB: "postgres", SLUICE_TEST_PG_URL: PG_URL },
              },
            },
          ]
        : undefined,
  },
});
