/**
 * Which data-directory templates fit this code (runtime/db/pglite-template.ts, runtime/db/README.md
 * "A new embedded database"): the same PGlite, and migrations that are exactly this code's first
 * ones. Pure: manifests written by hand.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { LEDGER_TABLE_DDL } from "../../../runtime/db/migrate.js";
import {
  type MigrationStamp,
  TEMPLATE_FORMAT,
  migrationStamps,
  redrawSql,
  templateMismatch,
} from "../../../runtime/db/pglite-template.js";

const migrations = [
  { version: 2, name: "second", sql: "CREATE TABLE b (x int)" },
  { version: 1, name: "first", sql: "CREATE TABLE a (x int)" },
  { version: 3, name: "third", sql: "CREATE TABLE c (x int)" },
];
const stamp = (version: number, name: string, sql: string): MigrationStamp => ({
  version,
  name,
  sha256: createHash("sha256").update(`${LEDGER_TABLE_DDL}\0${sql}`).digest("hex"),
});
const code = {
  pglite: "0.5.16",
  stamps: [
    stamp(1, "first", "CREATE TABLE a (x int)"),
    stamp(2, "second", "CREATE TABLE b (x int)"),
    stamp(3, "third", "CREATE TABLE c (x int)"),
  ],
};
const manifest = (over: Record<string, unknown> = {}) => ({
  format: TEMPLATE_FORMAT,
  pglite: "0.5.16",
  migrations: code.stamps,
  dirs: ["base", "base/5"],
  files: [{ path: "base/5/1259", size: 8192, sha256: "00" }],
  ...over,
});

describe("data-directory template manifests", () => {
  it("stamps migrations in version order, each with the hash of the ledger's DDL and its SQL", () => {
    expect(migrationStamps(migrations)).toEqual(code.stamps);
  });

  it("fits when made by this PGlite from all of this code's migrations, or from its first ones", () => {
    expect(templateMismatch(manifest(), code)).toBeNull();
    expect(templateMismatch(manifest({ migrations: code.stamps.slice(0, 2) }), code)).toBeNull();
    expect(templateMismatch(manifest({ migrations: [] }), code)).toBeNull();
  });

  it("does not fit when made by another PGlite or in another format", () => {
    expect(templateMismatch(manifest({ pglite: "0.5.15" }), code)).toBe("made by PGlite 0.5.15, this is PGlite 0.5.16");
    expect(templateMismatch(manifest({ format: TEMPLATE_FORMAT + 1 }), code)).toBe(
      `template format ${TEMPLATE_FORMAT + 1}, this code reads ${TEMPLATE_FORMAT}`,
    );
  });

  it("does not fit when a migration it holds differs, is missing from this code, or skips one", () => {
    const changed = [code.stamps[0], stamp(2, "second", "CREATE TABLE b (x bigint)")];
    expect(templateMismatch(manifest({ migrations: changed }), code)).toBe(
      "its migration 2 (second) differs from this code's migration 2 (second)",
    );
    const more = [...code.stamps, stamp(4, "fourth", "CREATE TABLE d (x int)")];
    expect(templateMismatch(manifest({ migrations: more }), code)).toBe("it holds 4 migrations, this code has 3");
    const gap = [code.stamps[0], code.stamps[2]];
    expect(templateMismatch(manifest({ migrations: gap }), code)).toBe(
      "its migration 3 (third) differs from this code's migration 2 (second)",
    );
  });

  it("does not fit when the manifest is not one or names paths outside the template", () => {
    expect(templateMismatch(null, code)).toBe("the manifest is not a JSON object");
    expect(templateMismatch(manifest({ files: undefined }), code)).toBe(
      "the manifest lacks its migrations, dirs or files",
    );
    for (const bad of ["../x", "/etc/passwd", "base//x", "base/../../x", ""]) {
      expect(templateMismatch(manifest({ files: [{ path: bad, size: 1, sha256: "00" }] }), code)).toBe(
        "the manifest names a path outside the template",
      );
      expect(templateMismatch(manifest({ dirs: [bad] }), code)).toBe("the manifest names a path outside the template");
    }
  });

  it("redraws the webhook token only for templates holding migration 12", () => {
    const held = (versions: number[]) => ({ migrations: versions.map((v) => stamp(v, `m${v}`, "")) });
    expect(redrawSql(held([1, 2, 11]))).toEqual([]);
    expect(redrawSql(held([1, 12, 13]))).toEqual([
      "UPDATE control.webhook_progress SET webhooks_token = md5(random()::text || clock_timestamp()::text)",
    ]);
  });
});
