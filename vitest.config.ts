import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // PGlite is ~0.5 GB per instance: keep parallelism modest on a 2-core machine.
    maxWorkers: 2,
    pool: "forks",
  },
});
