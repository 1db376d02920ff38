/**
 * chain.events stores a compact payload (runtime/chain/event-payload.ts, migration 16): every
 * reader still gets the decoder's payload back — the block loader, the subgraph block reader,
 * the Index/Streams page SQL and the archive's bundle export — for every event type, including
 * values the compact form cannot rebuild (an amount with leading zeros, upper-case hex), which
 * stay in the stored payload as sent. The expected payloads are the decoder's output for
 * node-shaped events; the stored form is checked to leave out what the columns hold. Both drivers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileListPage } from "../../../runtime/api/events/sql.js";
import { parseStreamEventsQuery } from "../../../runtime/api/events/query.js";
import { CHAIN_TABLES, exportSql } from "../../../runtime/archive/chain-tables.js";
import { insertBlockRows, loadBlock } from "../../../runtime/chain/block-store.js";
import { decodeEvent } from "../../../runtime/chain/decode/decode-events.js";
import type { DecodedEvent } from "../../../runtime/chain/types.js";
import { readCanonicalRange } from "../../../runtime/subgraphs/block-reader.js";
import { type TestDb, TEST_DB_KIND, createTestDb } from "../../support/db.js";
import { block, tx } from "../../support/decoded-chain.js";

const hash = (byte: string) => `0x${byte.repeat(32)}`;
const TX = hash("a1");
const A = "SP2KVQZA2FQNH90SNC9VQQQQH5ZWYANC08EZQQ14";
const B = "SP3SPONSOR0000000000000000000000000000000";
const TOKEN = "SP000000000000000000002Q6VF78.token";
const UINT_54 = "0x0100000000000000000000000000000036";
const UINT_162_UPPER = "0x01000000000000000000000000000000A2";
/** (tuple (a u1) (b "hi")) as the node serializes it. */
const TUPLE = "0x0c000000020161010000000000000000000000000000000101620d000000026869";

/** Node-shaped events (type name, body) covering every type and the values kept as sent. */
const NODE_EVENTS: [string, Record<string, unknown>][] = [
  ["stx_transfer_event", { sender: A, recipient: B, amount: "1000", memo: "6869" }],
  ["stx_transfer_event", { sender: A, recipient: B, amount: "0007" }],
  ["stx_mint_event", { recipient: B, amount: "5" }],
  ["stx_burn_event", { sender: A, amount: "6" }],
  ["stx_lock_event", { locked_address: A, locked_amount: "4953000000000", unlock_height: "570" }],
  [
    "ft_transfer_event",
    { asset_identifier: `${TOKEN}::t`, sender: A, recipient: B, amount: "340282366920938463463374607431768211455" },
  ],
  ["ft_mint_event", { asset_identifier: `${TOKEN}::t`, recipient: B, amount: "1" }],
  ["ft_burn_event", { asset_identifier: `${TOKEN}::t`, sender: A, amount: "2" }],
  ["nft_transfer_event", { asset_identifier: `${TOKEN}::n`, sender: A, recipient: B, raw_value: UINT_54 }],
  ["nft_mint_event", { asset_identifier: `${TOKEN}::n`, recipient: B, raw_value: UINT_162_UPPER }],
  ["nft_burn_event", { asset_identifier: `${TOKEN}::n`, sender: A, raw_value: UINT_54 }],
  ["contract_event", { contract_identifier: TOKEN, topic: "print", raw_value: TUPLE }],
  ["contract_event", { contract_identifier: TOKEN, topic: "print", raw_value: "0x99" }],
];

function decoded(): DecodedEvent[] {
  return NODE_EVENTS.map(([type, body], i) => {
    const e = decodeEvent({ type, event_index: i, committed: true, [type]: body }, `events[${i}]`, TX, 0);
    e.eventIndex = i;
    return e;
  });
}

describe(`compact event payloads on ${TEST_DB_KIND}`, () => {
  let t: TestDb;
  const events = decoded();
  const byIndex = new Map(events.map((e) => [e.eventIndex, e.payload]));
  beforeAll(async () => {
    t = await createTestDb();
    await insertBlockRows(t.db, block([tx({ txId: TX, txIndex: 0 })], events, 1, { indexBlockHash: hash("01") }), true);
    await t.db.query("UPDATE control.chain_tip SET index_block_hash = $1, block_height = 1", [hash("01")]);
  });
  afterAll(async () => {
    await t?.drop();
  });

  it("stores only what the columns do not hold", async () => {
    const { rows } = await t.db.query<{ event_index: number; payload: Record<string, unknown>; raw: string | null }>(
      "SELECT event_index, payload, encode(raw_value, 'hex') AS raw FROM chain.events ORDER BY event_index",
    );
    expect(rows.map((r) => Object.keys(r.payload).sort())).toEqual([
      ["memo"],
      ["amount", "memo"], // "0007" is not the numeric column's text
      [],
      [],
      ["unlock_height"],
      [],
      [],
      [],
      ["value"],
      expect.arrayContaining(["raw_value", "value"]), // upper-case hex is not what the column would give back
      ["value"],
      ["value"],
      ["decode_error", "value"],
    ]);
    expect(rows[8].raw).toBe(UINT_54.slice(2));
    expect(rows[9].raw).toBeNull();
  });

  it("the block loader, the subgraph reader, the page SQL and the archive export give the decoder's payloads", async () => {
    expect((await loadBlock(t.db, hash("01"))).events.map((e) => e.payload)).toEqual(events.map((e) => e.payload));

    const [range] = await readCanonicalRange(t.db, 1, 1, [...new Set(events.map((e) => e.type))], false);
    expect(range.events.map((e) => [e.eventIndex, e.payload])).toEqual(events.map((e) => [e.eventIndex, e.payload]));

    const { sql, params } = compileListPage({ ...parseStreamEventsQuery({ limit: "100" }), toHeight: null });
    const page = await t.db.query<{ event_index: number; j: string }>(sql, params);
    expect(page.rows.map((r) => [r.event_index, JSON.parse(r.j).payload])).toEqual(
      events.map((e) => [e.eventIndex, e.payload]),
    );

    const table = CHAIN_TABLES.find((c) => c.name === "chain.events");
    if (!table) throw new Error("no chain.events bundle section");
    const copy = exportSql(table, { firstHeight: 1, lastHeight: 1, burnAfter: -1, burnTo: 1 });
    const select = /^COPY \((.*)\) TO STDOUT$/s.exec(copy)?.[1];
    if (!select) throw new Error(`not a COPY: ${copy}`);
    const exported = await t.db.query<{ event_index: number; payload: unknown }>(select);
    expect(exported.rows.map((r) => [r.event_index, r.payload])).toEqual(
      events.map((e) => [e.eventIndex, byIndex.get(e.eventIndex)]),
    );
  });
});
