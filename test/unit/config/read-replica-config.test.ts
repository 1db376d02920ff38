/**
 * DATABASE_READ_URL and READ_REPLICA_MAX_LAG_MS (README "Read replicas"): a comma-separated list
 * of PostgreSQL URLs, refused without DATABASE_URL, each bad item reported on one line by its
 * position and never with its password; a maximum lag in whole milliseconds.
 */
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../../runtime/config/index.js";
import { ConfigError } from "../../../runtime/internal/errors.js";

function problemsOf(env: Record<string, string>): string[] {
  try {
    parseConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error("expected parseConfig to throw");
}

const PRIMARY = "postgres://sluice@db-primary:5432/sluice";

describe("DATABASE_READ_URL", () => {
  it("unset: no replicas, and the maximum lag defaults to 5000 ms", () => {
    const config = parseConfig({ DATABASE_URL: PRIMARY });
    expect(config.readReplicaUrls).toEqual([]);
    expect(config.readReplicaMaxLagMs).toBe(5000);
  });

  it("one or several URLs, trimmed, in order", () => {
    const config = parseConfig({
      DATABASE_URL: PRIMARY,
      DATABASE_READ_URL: " postgres://r@replica-a:5432/sluice , postgresql://r:pw@replica-b:6432/sluice",
      READ_REPLICA_MAX_LAG_MS: "250",
    });
    expect(config.readReplicaUrls).toEqual([
      "postgres://r@replica-a:5432/sluice",
      "postgresql://r:pw@replica-b:6432/sluice",
    ]);
    expect(Object.isFrozen(config.readReplicaUrls)).toBe(true);
    expect(config.readReplicaMaxLagMs).toBe(250);
  });

  it("is refused without DATABASE_URL", () => {
    expect(problemsOf({ DATABASE_READ_URL: "postgres://r@replica-a/sluice" })).toEqual([
      "DATABASE_READ_URL needs DATABASE_URL: read replicas follow a PostgreSQL primary, not the embedded database",
    ]);
  });

  it("reports each bad item on its own line, by position, without its password", () => {
    const problems = problemsOf({
      DATABASE_URL: PRIMARY,
      DATABASE_READ_URL:
        "mysql://u:secret1@h/db,,postgres:///db,postgres://r@a:5432/s,postgres://r@a:5432/s,postgres://u:secret2@[x/db",
    });
    expect(problems).toEqual([
      "DATABASE_READ_URL item 1 must start with postgres:// or postgresql://",
      "DATABASE_READ_URL item 2 is empty (separate PostgreSQL URLs with single commas)",
      "DATABASE_READ_URL item 3 has no host (expected e.g. postgres://user@replica-host:5432/sluice)",
      "DATABASE_READ_URL item 5 repeats an earlier one (a:5432)",
      "DATABASE_READ_URL item 6 is not a URL (expected e.g. postgres://user@replica-host:5432/sluice)",
    ]);
    expect(problems.join("\n")).not.toMatch(/secret/);
  });

  it("READ_REPLICA_MAX_LAG_MS must be a whole number of milliseconds 1-3600000", () => {
    for (const bad of ["0", "-5", "1.5", "5s", "3600001"]) {
      expect(problemsOf({ DATABASE_URL: PRIMARY, READ_REPLICA_MAX_LAG_MS: bad })).toEqual([
        `READ_REPLICA_MAX_LAG_MS=${JSON.stringify(bad)} is not a whole number of milliseconds 1-3600000`,
      ]);
    }
    expect(parseConfig({ DATABASE_URL: PRIMARY, READ_REPLICA_MAX_LAG_MS: "3600000" }).readReplicaMaxLagMs).toBe(
      3_600_000,
    );
  });
});
