/**
 * A bootstrap's address rows derived from a bundle's sections (runtime/archive/address-activity-rows.ts):
 * hand-written COPY rows of two blocks in, and the rows written out here from the rule (fees to the
 * sponsor else the sender, committed STX events only, matured miner rewards summed) expected back,
 * whichever way the sections are cut into chunks.
 */
import { describe, expect, it } from "vitest";
import { AddressActivityRows } from "../../../runtime/archive/address-activity-rows.js";
import { BundleFormatError } from "../../../runtime/archive/bundle.js";
import { CHAIN_TABLES, type ChainTable } from "../../../runtime/archive/chain-tables.js";
import { compactEventRows } from "../../../runtime/archive/compact-event-rows.js";

const H1 = `0x${"a1".repeat(32)}`;
const H2 = `0x${"b2".repeat(32)}`;
const [A, B, C, D, S, M] = ["SPA", "SPB", "SPC.contract", "SPD", "SPS", "SPM"];

function row(table: ChainTable["name"], values: Record<string, string>): string {
  const columns = CHAIN_TABLES.find((t) => t.name === table)?.columns ?? [];
  return `${columns.map((c) => values[c] ?? "\\N").join("\t")}\n`;
}
const rewards = JSON.stringify([
  {
    recipient: M,
    coinbase_amount: "1000",
    tx_fees_anchored: "10",
    tx_fees_streamed_confirmed: "1",
    tx_fees_streamed_produced: "2",
  },
]);
const blocks =
  row("chain.blocks", { index_block_hash: H1, block_height: "5", canonical: "t", matured_miner_rewards: rewards }) +
  row("chain.blocks", { index_block_hash: H2, block_height: "6", canonical: "t" });
const raw = "0x0c0000"; // bulky columns after the ones read
const txs =
  row("chain.transactions", {
    index_block_hash: H1,
    tx_index: "0",
    sender: A,
    fee: "300",
    contract_id: C,
    raw_tx: raw,
  }) +
  row("chain.transactions", { index_block_hash: H1, tx_index: "1", sender: A, sponsor: S, fee: "50", recipient: B }) +
  row("chain.transactions", { index_block_hash: H2, tx_index: "0", sender: B, fee: "0", raw_tx: raw });
const event = (h: string, i: number, committed: string, type: string, v: Record<string, string>) =>
  row("chain.events", {
    index_block_hash: h,
    event_index: String(i),
    canonical: "t",
    committed,
    event_type: type,
    payload: '{"memo": "0x00"}',
    ...v,
  });
const events =
  event(H1, 0, "t", "stx_transfer", { sender: A, recipient: B, amount: "100" }) +
  event(H1, 1, "f", "stx_transfer", { sender: A, recipient: D, amount: "999" }) + // a failed transaction's
  event(H2, 0, "t", "stx_mint", { recipient: D, amount: "7" }) +
  event(H2, 1, "t", "stx_burn", { sender: B, amount: "3" });

// index_block_hash, address, block_height, canonical, received, sent, fees, miner_rewards
const expected = [
  [H1, A, 5, "t", 0, 100, 300, 0],
  [H1, C, 5, "t", 0, 0, 0, 0],
  [H1, S, 5, "t", 0, 0, 50, 0],
  [H1, B, 5, "t", 100, 0, 0, 0],
  [H1, M, 5, "t", 0, 0, 0, 1013],
  [H2, B, 6, "t", 0, 3, 0, 0],
  [H2, D, 6, "t", 7, 0, 0, 0],
]
  .map((r) => r.join("\t"))
  .sort();

async function* chunks(text: string, size: number): AsyncIterable<Buffer> {
  const buf = Buffer.from(text);
  for (let at = 0; at < buf.length; at += size) yield buf.subarray(at, at + size);
}
async function drain(data: AsyncIterable<Buffer>): Promise<string> {
  const out: Buffer[] = [];
  for await (const c of data) out.push(c);
  return Buffer.concat(out).toString();
}

async function derive(size: number): Promise<{ rows: string[]; txsOut: string }> {
  const collector = new AddressActivityRows();
  collector.addBlocks(Buffer.from(blocks));
  const txsOut = await drain(collector.transactions(chunks(txs, size)));
  await drain(compactEventRows(chunks(events, size), (f) => collector.eventRow(f)));
  const rows = collector.rows().toString().split("\n").filter(Boolean).sort();
  return { rows, txsOut };
}

describe("AddressActivityRows", () => {
  it("derives each block's address rows by the ingestion rule", async () => {
    const { rows, txsOut } = await derive(1 << 16);
    expect(rows).toEqual(expected);
    expect(txsOut).toBe(txs); // passed through unchanged
  });

  it("gives the same rows whichever way the sections are cut into chunks", async () => {
    for (const size of [1, 7, 64]) expect((await derive(size)).rows).toEqual(expected);
  });

  it("refuses a row of a block the bundle does not carry, and an amount that is not whole", async () => {
    const collector = new AddressActivityRows();
    collector.addBlocks(Buffer.from(blocks));
    const stray = row("chain.transactions", { index_block_hash: `0x${"cc".repeat(32)}`, sender: A, fee: "1" });
    await expect(drain(collector.transactions(chunks(stray, 16)))).rejects.toThrow(BundleFormatError);
    const odd = new AddressActivityRows();
    odd.addBlocks(Buffer.from(blocks));
    await drain(
      compactEventRows(chunks(event(H1, 0, "t", "stx_transfer", { sender: A, amount: "1.5" }), 9), (f) =>
        odd.eventRow(f),
      ),
    );
    expect(() => odd.rows()).toThrow(BundleFormatError);
  });
});
