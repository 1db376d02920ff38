/** foldOp / renderInput / checkRow: upserts, increments and inserts applied to a row in memory. */
import { describe, expect, it } from "vitest";
import { subgraphs } from "../../../generated/index.js";
import type { SeqOp } from "../../../runtime/subgraphs/op-runs.js";
import {
  checkRow,
  foldOp,
  foldUpdate,
  keyOf,
  matchText,
  renderInput,
  RowRefusedError,
} from "../../../runtime/subgraphs/row-fold.js";
import type { RowOp, TableMeta } from "../../../runtime/subgraphs/types.js";

const holdings: TableMeta = subgraphs.find((s) => s.name === "asset-holdings")!.tables.holdings;
const names: TableMeta = subgraphs.find((s) => s.name === "bns-names")!.tables.names;
const fresh = { id: 41, createdAt: "2026-01-15T10:20:30.123456Z" };

function planned(op: RowOp, blockHeight = 7, txId = "0xt1"): SeqOp {
  return { op, ordinal: 0, seq: 0, txId, eventIndex: 0, blockHeight, indexBlockHash: "0xib" };
}
const inc = (holder: string, amount: string) =>
  planned({
    kind: "increment",
    table: "holdings",
    key: { kind: "stx", asset_identifier: "STX", holder },
    deltas: { amount },
  });

describe("foldOp", () => {
  it("creates a row from an increment: the delta, the key, the fresh _id and _created_at, the block's system columns", () => {
    const row = foldOp(holdings, undefined, inc("SP1", "250"), fresh);
    expect(row).toMatchObject({
      _id: 41,
      _created_at: fresh.createdAt,
      _block_height: "7",
      _tx_id: "0xt1",
      kind: "stx",
      asset_identifier: "STX",
      holder: "SP1",
      amount: "250",
    });
    expect(Object.keys(row)).toEqual(Object.keys(holdings.columns));
  });

  it("adds deltas exactly, beyond 2^64, keeping the row's identity", () => {
    const big = (2n ** 70n).toString();
    const first = foldOp(holdings, undefined, inc("SP1", big), fresh);
    const second = foldOp(holdings, first, { ...inc("SP1", "-3"), blockHeight: 9, txId: "0xt2" }, undefined);
    expect(second.amount).toBe((2n ** 70n - 3n).toString());
    expect(second).toMatchObject({ _id: 41, _created_at: fresh.createdAt, _block_height: "9", _tx_id: "0xt2" });
    expect(first.amount).toBe(big); // the earlier state is not changed in place
  });

  it("an insert makes a new row of exactly its values (others null) and refuses a missing NOT NULL value", () => {
    const insert = (values: Record<string, unknown>) => planned({ kind: "insert", table: "names", values });
    const row = foldOp(names, undefined, insert({ fqn: "b.btc", name: "b", namespace: "btc", topic: "new" }), fresh);
    expect(row).toMatchObject({ fqn: "b.btc", name: "b", namespace: "btc", topic: "new", owner: null, _id: 41 });
    expect(Object.keys(row)).toEqual(Object.keys(names.columns));
    expect(() => foldOp(names, undefined, insert({ fqn: "c.btc", name: "c", topic: "new" }), fresh)).toThrow(
      RowRefusedError,
    );
    expect(() => foldOp(names, row, insert({ fqn: "b.btc" }), undefined)).toThrow(/new row/);
  });

  it("upserts overwrite only the columns they name", () => {
    const op = (values: Record<string, unknown>) =>
      planned({ kind: "upsert", table: "names", key: ["fqn"], values: { fqn: "a.btc", ...values } });
    const created = foldOp(names, undefined, op({ name: "a", namespace: "btc", owner: "SP1", topic: "new" }), fresh);
    const burned = foldOp(names, created, op({ owner: null, topic: "burn-name" }), undefined);
    expect(burned).toMatchObject({
      fqn: "a.btc",
      name: "a",
      namespace: "btc",
      owner: null,
      topic: "burn-name",
      _id: 41,
    });
    const untouched = Object.keys(names.columns).filter(
      (c) => !["fqn", "owner", "topic", "_block_height", "_tx_id"].includes(c),
    );
    for (const c of untouched) expect(burned[c], c).toEqual(created[c]);
  });

  it("refuses what the database would refuse: a negative uint, a null NOT NULL column", () => {
    const meta: TableMeta = {
      ...holdings,
      columns: { ...holdings.columns, amount: { ...holdings.columns.amount, type: "uint" } },
    };
    const row = foldOp(meta, undefined, inc("SP1", "5"), fresh);
    expect(() => foldOp(meta, row, inc("SP1", "-6"), undefined)).toThrow(RowRefusedError);
    const nameless = planned({ kind: "upsert", table: "names", key: ["fqn"], values: { fqn: null } });
    expect(() => foldOp(names, undefined, nameless, fresh)).toThrow(RowRefusedError);
  });
});

describe("renderInput", () => {
  it("renders timestamps as PostgreSQL prints them, and leaves to the database what it cannot vouch for", () => {
    expect(renderInput("timestamp", "2026-01-15T10:20:30.5Z")).toBe("2026-01-15T10:20:30.500000Z");
    expect(renderInput("timestamp", "2026-01-15T12:20:30+02:00")).toBe("2026-01-15T10:20:30.000000Z");
    expect(() => renderInput("timestamp", "2026-01-15T10:20:30.1234567Z")).toThrow(RowRefusedError);
    expect(() => renderInput("timestamp", 1_735_689_600)).toThrow(RowRefusedError);
  });

  it("renders numbers canonically and refuses non-numbers", () => {
    expect(renderInput("int", "007")).toBe("7");
    expect(renderInput("uint", 12)).toBe("12");
    expect(renderInput("bigint", "-1.50")).toBe("-1.50");
    expect(() => renderInput("int", "1e5")).toThrow(RowRefusedError);
    expect(() => renderInput("int", 0.5)).toThrow(RowRefusedError);
    expect(() => renderInput("boolean", "yes")).toThrow(RowRefusedError);
    expect(renderInput("text", "a\u0000b")).toBe("a\ufffdb");
  });
});

describe("keyOf / checkRow", () => {
  it("an operation's key values and the stored row give the same identity", () => {
    const row = foldOp(holdings, undefined, inc("SP1", "1"), fresh);
    const key = ["kind", "asset_identifier", "holder"];
    expect(keyOf(holdings, key, row)).toBe(
      keyOf(holdings, key, { kind: "stx", asset_identifier: "STX", holder: "SP1" }),
    );
    expect(keyOf(holdings, key, row)).not.toBe(
      keyOf(holdings, key, { kind: "ft", asset_identifier: "STX", holder: "SP1" }),
    );
  });

  it("checkRow accepts a complete row", () => {
    expect(() => checkRow(holdings, foldOp(holdings, undefined, inc("SP1", "1"), fresh))).not.toThrow();
  });
});

describe("update in memory (matchText, foldUpdate)", () => {
  const transfers: TableMeta = subgraphs.find((s) => s.name === "sbtc-flows")!.tables.transfers;
  const row = (memo: string | null, eventIndex: string) =>
    ({ ...foldOp(holdings, undefined, inc("SP1", "1"), fresh), memo, event_index: eventIndex }) as Record<
      string,
      unknown
    >;

  it("matches as the statement's = and IS NULL would: a null is not the text 'null', 7 equals \"7\"", () => {
    const cols = ["memo", "event_index"];
    expect(matchText(transfers, cols, { memo: null, event_index: 7 })).toBe(matchText(transfers, cols, row(null, "7")));
    expect(matchText(transfers, cols, { memo: "null", event_index: 7 })).not.toBe(
      matchText(transfers, cols, row(null, "7")),
    );
    expect(matchText(transfers, cols, { memo: "0x01", event_index: "7" })).not.toBe(
      matchText(transfers, cols, row("0x01", "8")),
    );
  });

  it("writes the set columns and the update's block and transaction, nothing else", () => {
    const before = { _id: 3, _block_height: "5", _tx_id: "0xa", memo: null, event_index: "2", amount: "10" };
    const op = planned(
      { kind: "update", table: "transfers", key: { event_index: 2 }, set: { memo: "0xbeef" } },
      9,
      "0xb",
    );
    expect(foldUpdate(transfers, before, op)).toEqual({ ...before, memo: "0xbeef", _block_height: "9", _tx_id: "0xb" });
    expect(before.memo).toBeNull(); // rows are copied on change
  });

  it("leaves keys it cannot compare exactly to the database", () => {
    const withJson = {
      ...transfers,
      columns: {
        ...transfers.columns,
        doc: { type: "jsonb", nullable: true, indexed: false, searchable: false, system: false },
      },
    } as TableMeta;
    expect(() => matchText(withJson, ["doc"], { doc: { a: 1 } })).toThrow(RowRefusedError);
  });
});
