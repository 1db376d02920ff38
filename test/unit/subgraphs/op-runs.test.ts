/** buildRuns / runParams / runChanges: batching row operations and rebuilding per-operation changes. */
import { describe, expect, it } from "vitest";
import { buildRuns, runChanges, runParams, type SeqOp } from "../../../runtime/subgraphs/op-runs.js";
import type { RowOp, TableMeta } from "../../../runtime/subgraphs/types.js";
import { subgraphs } from "../../../generated/index.js";

const holdings: TableMeta = subgraphs.find((s) => s.name === "asset-holdings")!.tables.holdings;
const names: TableMeta = subgraphs.find((s) => s.name === "bns-names")!.tables.names;

let seq = 0;
function planned(op: RowOp, txId = "0xt1", blockHeight = 5): SeqOp {
  return { op, ordinal: seq, seq: seq++, txId, eventIndex: seq, blockHeight, indexBlockHash: "0xib" };
}
const inc = (holder: string, amount: string, tx?: string) =>
  planned(
    { kind: "increment", table: "holdings", key: { kind: "stx", asset_identifier: "STX", holder }, deltas: { amount } },
    tx,
  );

describe("buildRuns", () => {
  it("puts consecutive increments of one signature in one run and merges them per key", () => {
    const ops = [inc("A", "-10"), inc("B", "10"), inc("A", "-5", "0xt2")];
    const runs = buildRuns(holdings, ops);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ kind: "increment", key: ["kind", "holder", "asset_identifier"], adds: ["amount"] });
    // _block_height[], _tx_id[], then key columns and deltas; A's deltas summed, last tx kept.
    expect(runParams(holdings, runs[0])).toEqual([
      ["5", "5"],
      ["0xt2", "0xt1"],
      ["stx", "stx"],
      ["A", "B"],
      ["STX", "STX"],
      ["-15", "10"],
    ]);
  });

  it("runs an operation whose key holds a null alone", () => {
    const ops = [
      inc("A", "1"),
      planned({
        kind: "increment",
        table: "holdings",
        key: { kind: "stx", asset_identifier: "STX", holder: null },
        deltas: { amount: "1" },
      }),
      inc("A", "1"),
    ];
    expect(buildRuns(holdings, ops).map((r) => r.ops.length)).toEqual([1, 1, 1]);
  });

  it("splits upserts with different column sets and keeps update/delete alone", () => {
    const up = (fqn: string, values: Record<string, unknown>) =>
      planned({ kind: "upsert", table: "names", key: ["fqn"], values: { fqn, ...values } });
    const ops = [
      up("a.btc", { owner: "ST1", topic: "new-name" }),
      up("b.btc", { owner: "ST2", topic: "new-name" }),
      up("a.btc", { topic: "renew-name" }),
      planned({ kind: "delete", table: "names", key: { fqn: "b.btc" } }),
      planned({ kind: "update", table: "names", key: { fqn: "a.btc" }, set: { owner: null } }),
    ];
    expect(buildRuns(names, ops).map((r) => [r.kind, r.ops.length])).toEqual([
      ["upsert", 2],
      ["upsert", 1],
      ["delete", 1],
      ["update", 1],
    ]);
  });
});

describe("runChanges", () => {
  const row = (holder: string, amount: string, id: number, tx: string) => ({
    kind: "stx",
    amount,
    holder,
    asset_identifier: "STX",
    _id: id,
    _block_height: "5",
    _tx_id: tx,
    _created_at: "2026-01-01T00:00:00.000Z",
  });

  it("rebuilds one change per operation, intermediate rows included, the last one as stored", () => {
    const ops = [inc("A", "-10"), inc("B", "10"), inc("A", "-5", "0xt2")];
    const [run] = buildRuns(holdings, ops);
    const before = { ...row("A", "100", 1, "0xold"), _block_height: "4" };
    const stored = [row("A", "85", 1, "0xt2"), row("B", "10", 2, "0xt1")];
    const changes = runChanges("asset-holdings", holdings, run, [before], stored).map((d) => d.change);
    expect(changes.map((c) => [c.op, c.row.holder, c.row.amount, c.txId, c.previous?.amount])).toEqual([
      ["updated", "A", "90", "0xt1", "100"],
      ["created", "B", "10", "0xt1", undefined],
      ["updated", "A", "85", "0xt2", "90"],
    ]);
    expect(changes[0].row).toEqual({ ...row("A", "90", 1, "0xt1") });
    expect(changes[2].row).toBe(stored[0]);
    expect(changes.every((c) => !c.reverted && c.indexBlockHash === "0xib" && c.blockHeight === 5)).toBe(true);
  });

  it("maps inserted rows to insert operations in order", () => {
    const flows = subgraphs.find((s) => s.name === "sbtc-flows")!.tables.flows;
    const ins = (topic: string) => planned({ kind: "insert", table: "flows", values: { topic } });
    const [run] = buildRuns(flows, [ins("a"), ins("b")]);
    const stored = [
      { topic: "b", _id: 8 },
      { topic: "a", _id: 7 },
    ];
    expect(runChanges("sbtc-flows", flows, run, [], stored).map((d) => [d.change.op, d.change.row.topic])).toEqual([
      ["created", "a"],
      ["created", "b"],
    ]);
  });
});
