/**
 * `sluice start --role` and ROLE: a value that is not a role, or a role other than `all` on the
 * embedded database, stops start-up with one clear line and exit code 2, never a stack trace.
 */
import { describe, expect, it } from "vitest";
import { runCli } from "../../support/cli.js";

describe("sluice start --role", () => {
  it("refuses a value that is not a role", async () => {
    const r = await runCli(["start", "--role", "leader"], { DATABASE_URL: "", API_PORT: "0", OBSERVER_PORT: "0" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--role "leader" is not one of: all, api, ingest, dispatcher');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("refuses ROLE=bogus from the environment", async () => {
    const r = await runCli(["start"], { ROLE: "bogus", DATABASE_URL: "", API_PORT: "0", OBSERVER_PORT: "0" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('ROLE="bogus" is not one of: all, api, ingest, dispatcher');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("refuses a role other than all on the embedded database", async () => {
    const r = await runCli(["start", "--role", "ingest"], { DATABASE_URL: "", API_PORT: "0", OBSERVER_PORT: "0" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("ROLE=ingest needs PostgreSQL (DATABASE_URL)");
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
