import { BaseSequencer, type TestSpecification } from "vitest/node";
import { configDefaults, defineConfig } from "vitest/config";

/**
 * SLUICE_TEST_DB picks the database tests run on: `pglite` (the default), `postgres`, or both
 * (`pglite,postgres`, what test/run.mjs sets). Both means two projects in one run: the whole suite
 * on PGlite and the storage suites (test/integration) on PostgreSQL, scheduled together.
 */
const kinds = (process.env.SLUICE_TEST_DB ?? "pglite").split(",");
const ALL_FILES = ["test/**/*.test.ts"];
const STORAGE_FILES = ["test/integration/**/*.test.ts"];
/** Browser tests (the web console): storage is not their concern, so only PGlite runs them. */
const E2E_FILES = ["test/e2e/**/*.test.ts"];
const PG_URL = process.env.SLUICE_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/**
 * Files that take a minute or more: they start first, so none is left running alone at the end.
 * Vitest orders by the durations of the last run when it has them; a fresh checkout has none.
 */
const LONG_FILES = [
  // The longest two: several minutes of CPU each on PGlite (service processes killed and restarted).
  "test/integration/dispatcher/scale-crash.test.ts",
  "test/integration/archive/crash.test.ts",
  "test/generator/added-spec.test.ts",
  "test/integration/service-process.test.ts",
  "test/integration/api/events/index-streams.test.ts",
  "test/integration/cli/dev-command.test.ts",
  "test/integration/cli/import.test.ts",
  // Its kills are timed from a reference import it runs first: starting it after the files above,
  // when the added-spec copy (a vitest run of its own) has usually ended, keeps the load its
  // reference and its killed imports see alike.
  "test/integration/cli/import-crash-safety.test.ts",
  "test/integration/chain/simulated-ingest.test.ts",
  // Six embedded databases created with initdb (the template's fallbacks and their reference).
  "test/integration/db/pglite-template.test.ts",
  "test/e2e/console.test.ts",
];

class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const index = LONG_FILES.findIndex((path) => file.moduleId.endsWith(path));
      return index === -1 ? LONG_FILES.length : index;
    };
    // Array sort is stable: the rest keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    // Projects inherit (extends: true) and would add to this list, so it is set only without them.
    include: kinds.length > 1 ? [] : ALL_FILES,
    exclude:
      kinds.length === 1 && kinds[0] === "postgres"
        ? [...configDefaults.exclude, ...E2E_FILES]
        : configDefaults.exclude,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // PGlite is ~0.5 GB per instance: keep parallelism modest on a 2-core machine.
    maxWorkers: 2,
    pool: "forks",
    // Test files share their worker's module cache: a file no longer pays seconds to import the
    // runtime, the generator and PGlite again. Files keep their state in their own scope.
    isolate: false,
    sequence: { sequencer: LongFilesFirst },
    // The sources transpiled once for the CLI and service processes tests start (test/support/cli.ts),
    // then the embedded database template those processes start from (in that order).
    globalSetup: ["test/support/transpiled-sources.ts", "test/support/children-pglite-template.ts"],
    projects:
      kinds.length > 1
        ? [
            {
              extends: true,
              test: { name: "pglite", include: [...ALL_FILES, ...E2E_FILES], env: { SLUICE_TEST_DB: "pglite" } },
            },
            {
              extends: true,
              test: {
                name: "postgres",
                include: STORAGE_FILES,
                env: { SLUICE_TEST_DB: "postgres", SLUICE_TEST_PG_URL: PG_URL },
              },
            },
          ]
        : undefined,
  },
});
