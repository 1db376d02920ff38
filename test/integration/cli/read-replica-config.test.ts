/**
 * DATABASE_READ_URL and READ_REPLICA_MAX_LAG_MS at start-up (README "Read replicas"): a bad value
 * stops `sluice start` with one line per problem and exit status 2, never a stack trace, and a
 * password in a bad URL is never echoed.
 */
import { describe, expect, it } from "vitest";
import { runCli } from "../../support/cli.js";

const PORTS = { API_PORT: "0", OBSERVER_PORT: "0" };

describe("read-replica settings at start-up", () => {
  it("refuses DATABASE_READ_URL without DATABASE_URL", async () => {
    const r = await runCli(["start"], { ...PORTS, DATABASE_URL: "", DATABASE_READ_URL: "postgres://r@replica/sluice" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("DATABASE_READ_URL needs DATABASE_URL");
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("reports a bad item and a bad maximum lag on their own lines, without the password", async () => {
    const r = await runCli(["start"], {
      ...PORTS,
      DATABASE_URL: "postgres://postgres@127.0.0.1:1/none",
      DATABASE_READ_URL: "postgres://r@replica-a/sluice,mysql://r:hunter2@replica-b/sluice",
      READ_REPLICA_MAX_LAG_MS: "5s",
    });
    expect(r.code).toBe(2);
    const lines = r.stderr.split("\n");
    expect(lines.filter((l) => l.includes("DATABASE_READ_URL item 2 must start with postgres://"))).toHaveLength(1);
    expect(lines.filter((l) => l.includes('READ_REPLICA_MAX_LAG_MS="5s" is not a whole number'))).toHaveLength(1);
    expect(r.stderr).not.toContain("hunter2");
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
