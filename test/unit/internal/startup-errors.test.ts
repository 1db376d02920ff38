/**
 * Start-up failures explained (runtime/internal/startup-errors.ts): each names the setting to
 * change and the address, never the database password; unknown errors pass through unchanged.
 */
import { describe, expect, it } from "vitest";
import { StartupError } from "../../../runtime/internal/errors.js";
import { databaseAddress, explainDatabaseError, explainListenError } from "../../../runtime/internal/startup-errors.js";

const withCode = (code: string, message = code) => Object.assign(new Error(message), { code });
const api = { hostVariable: "API_HOST", portVariable: "API_PORT", host: "127.0.0.1", port: 3800 };

describe("explainListenError", () => {
  it("a port in use names the port variable and the address", () => {
    const err = explainListenError(withCode("EADDRINUSE"), api);
    expect(err).toBeInstanceOf(StartupError);
    expect((err as Error).message).toBe(
      "API_PORT: 127.0.0.1:3800 is already in use by another process; stop it or set API_PORT to a free port",
    );
  });

  it("IPv6 hosts are bracketed; the observer's variables are named for the observer", () => {
    const err = explainListenError(withCode("EADDRINUSE"), {
      hostVariable: "OBSERVER_HOST",
      portVariable: "OBSERVER_PORT",
      host: "::",
      port: 3700,
    });
    expect((err as Error).message).toMatch(/^OBSERVER_PORT: \[::\]:3700 is already in use/);
  });

  it("a privileged port and a foreign address name the setting to change", () => {
    expect((explainListenError(withCode("EACCES"), { ...api, port: 80 }) as Error).message).toMatch(
      /^API_PORT: no permission to listen on 127\.0\.0\.1:80 .*set API_PORT to a port above 1023$/,
    );
    expect((explainListenError(withCode("EADDRNOTAVAIL"), { ...api, host: "10.9.9.9" }) as Error).message).toMatch(
      /^API_HOST: 10\.9\.9\.9 is not an address of this machine/,
    );
  });

  it("an error it does not know is returned as it is", () => {
    const err = withCode("EMFILE");
    expect(explainListenError(err, api)).toBe(err);
  });
});

describe("explainDatabaseError", () => {
  const url = "postgres://sluice:s3cret-pw@db.internal:6543/chain?sslmode=require";

  it.each([
    ["ECONNREFUSED", /connection refused; start PostgreSQL there or correct DATABASE_URL/],
    ["ENOTFOUND", /host not found; correct the host in DATABASE_URL/],
    ["ETIMEDOUT", /no answer; start PostgreSQL there or correct DATABASE_URL/],
    ["28P01", /correct the user or password in DATABASE_URL/],
    ["3D000", /create it \(createdb\) or correct the database name in DATABASE_URL/],
  ])("%s names DATABASE_URL and host:port, never the password", (code, todo) => {
    const err = explainDatabaseError(withCode(code), url);
    expect(err).toBeInstanceOf(StartupError);
    const message = (err as Error).message;
    expect(message).toMatch(/^PostgreSQL at db\.internal:6543 \(DATABASE_URL\): /);
    expect(message).toMatch(todo);
    expect(message).not.toContain("s3cret-pw");
  });

  it("a connection to a name with several addresses fails with an AggregateError: its inner code counts", () => {
    const aggregate = new AggregateError([withCode("ECONNREFUSED"), withCode("ECONNREFUSED")], "");
    expect((explainDatabaseError(aggregate, "postgres://localhost/x") as Error).message).toBe(
      "PostgreSQL at localhost:5432 (DATABASE_URL): connection refused; start PostgreSQL there or correct DATABASE_URL (unset it to use the embedded database in DATA_DIR)",
    );
  });

  it("an error it does not know is returned as it is", () => {
    const err = withCode("XX000", "internal error");
    expect(explainDatabaseError(err, url)).toBe(err);
  });

  it("databaseAddress keeps host and port only (default port 5432)", () => {
    expect(databaseAddress(url)).toBe("db.internal:6543");
    expect(databaseAddress("postgresql://u:p@127.0.0.1/db")).toBe("127.0.0.1:5432");
    expect(databaseAddress("postgres://u:p@[::1]:5433/db")).toBe("[::1]:5433");
  });
});
