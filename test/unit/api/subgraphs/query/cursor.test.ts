/** Opaque keyset cursors (runtime/api/subgraphs/query/cursor.ts): round trips, binding, tampering. */
import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor, type CursorBinding } from "../../../../../runtime/api/subgraphs/query/cursor.js";
import { ServiceError } from "../../../../../runtime/internal/errors.js";
import { flows, holdings, odd } from "../../../../support/subgraph-tables.js";

const byId: CursorBinding = { table: "asset-holdings/holdings", sort: "_id", order: "asc" };
const byHolder: CursorBinding = { table: "asset-holdings/holdings", sort: "holder", order: "desc" };
const cols = holdings.meta.columns;

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ServiceError);
    return `${(err as ServiceError).status} ${(err as ServiceError).code}`;
  }
  return "no error";
}

describe("encodeCursor / decodeCursor", () => {
  it("round-trips the position for the same binding", () => {
    expect(decodeCursor(encodeCursor(byId, { id: "42" }), byId, cols._id)).toEqual({ id: "42" });
    const c = encodeCursor(byHolder, { id: "7", sortValue: "SP123" });
    expect(decodeCursor(c, byHolder, cols.holder)).toEqual({ id: "7", sortValue: "SP123" });
  });

  it("keeps a NULL sort value of a nullable column", () => {
    const binding: CursorBinding = { table: "sbtc-flows/flows", sort: "request_id", order: "asc" };
    const c = encodeCursor(binding, { id: "9", sortValue: null });
    expect(decodeCursor(c, binding, flows.meta.columns.request_id)).toEqual({ id: "9", sortValue: null });
  });

  it("is URL-safe text: base64url JSON, a dot, a 16-character MAC", () => {
    const c = encodeCursor(byHolder, { id: "7", sortValue: "a/b+c?d&e" });
    expect(c).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{16}$/);
    expect(JSON.parse(Buffer.from(c.split(".")[0], "base64url").toString())).toEqual({
      v: 1,
      t: "asset-holdings/holdings",
      s: "holder",
      o: "desc",
      i: "7",
      k: "a/b+c?d&e",
    });
  });

  it("a cursor under another sort, order or table is 400 INVALID_CURSOR", () => {
    const c = encodeCursor(byId, { id: "42" });
    expect(codeOf(() => decodeCursor(c, { ...byId, order: "desc" }, cols._id))).toBe("400 INVALID_CURSOR");
    expect(codeOf(() => decodeCursor(c, { ...byId, sort: "holder" }, cols.holder))).toBe("400 INVALID_CURSOR");
    expect(codeOf(() => decodeCursor(c, { ...byId, table: "bns-names/names" }, cols._id))).toBe("400 INVALID_CURSOR");
  });

  it("tampering, truncation and garbage are 400 INVALID_CURSOR", () => {
    const c = encodeCursor(byId, { id: "42" });
    const [payload, mac] = c.split(".");
    const edited = Buffer.from(JSON.stringify({ v: 1, t: byId.table, s: "_id", o: "asc", i: "1" })).toString(
      "base64url",
    );
    for (const bad of [`${edited}.${mac}`, c.slice(0, -1), payload, `${payload}.`, ".x", "", "%%", "a".repeat(9000)]) {
      expect(
        codeOf(() => decodeCursor(bad, byId, cols._id)),
        bad.slice(0, 40),
      ).toBe("400 INVALID_CURSOR");
    }
  });

  it("re-validates values even under a valid MAC (the MAC is a checksum, not a secret)", () => {
    // A cursor minted for a text sort cannot be replayed where the column is numeric: same name, other type.
    const binding: CursorBinding = { table: 'odd-one/we"ird', sort: "n", order: "asc" };
    const c = encodeCursor(binding, { id: "1", sortValue: "not a number" });
    expect(codeOf(() => decodeCursor(c, binding, odd.meta.columns.n))).toBe("400 INVALID_CURSOR");
    const nullOnNotNull = encodeCursor(byHolder, { id: "1", sortValue: null });
    expect(codeOf(() => decodeCursor(nullOnNotNull, byHolder, cols.holder))).toBe("400 INVALID_CURSOR");
    const hugeId = encodeCursor(byId, { id: "99999999999999999999" });
    expect(codeOf(() => decodeCursor(hugeId, byId, cols._id))).toBe("400 INVALID_CURSOR");
  });
});
