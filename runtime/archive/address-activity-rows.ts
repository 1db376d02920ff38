/**
 * A bootstrap's chain.address_activity rows, derived from a partition's sections as they stream to
 * COPY, by the rule ingestion applies (chain/address-activity.ts `addressActivity`): a restored
 * instance holds the rows its ingestion would have written, and the restore skips the SQL rebuild
 * over the whole loaded chain, which cost more than all the chain indexes together. Pure: COPY
 * text in, COPY text out.
 *
 * Memory: the few fields the rule reads of each transaction are held until the events section
 * (which comes after the transactions) reaches their block; a block's events are let go as soon
 * as the section moves past it (both sections are ordered by height).
 */
import { type ActivitySource, addressActivity } from "../chain/address-activity.js";
import type { EventType } from "../chain/types.js";
import { BundleFormatError } from "./bundle.js";
import { CHAIN_TABLES, type ChainTable } from "./chain-tables.js";
import { copyField, copyFieldValue } from "./compact-event-rows.js";

/** The columns of the COPY this module's rows are written with. */
export const ADDRESS_ACTIVITY_COLUMNS: readonly string[] = [
  "index_block_hash",
  "address",
  "block_height",
  "canonical",
  "received",
  "sent",
  "fees",
  "miner_rewards",
];

const columnIndex = (table: ChainTable["name"], name: string) => {
  const i = CHAIN_TABLES.find((t) => t.name === table)?.columns.indexOf(name) ?? -1;
  if (i < 0) throw new Error(`bundle ${table} has no ${name} column`);
  return i;
};
const BLOCK = {
  hash: columnIndex("chain.blocks", "index_block_hash"),
  height: columnIndex("chain.blocks", "block_height"),
  canonical: columnIndex("chain.blocks", "canonical"),
  rewards: columnIndex("chain.blocks", "matured_miner_rewards"),
};
const TX = {
  hash: columnIndex("chain.transactions", "index_block_hash"),
  sender: columnIndex("chain.transactions", "sender"),
  sponsor: columnIndex("chain.transactions", "sponsor"),
  fee: columnIndex("chain.transactions", "fee"),
  contractId: columnIndex("chain.transactions", "contract_id"),
  recipient: columnIndex("chain.transactions", "recipient"),
};
const EVENT = {
  hash: columnIndex("chain.events", "index_block_hash"),
  committed: columnIndex("chain.events", "committed"),
  type: columnIndex("chain.events", "event_type"),
  sender: columnIndex("chain.events", "sender"),
  recipient: columnIndex("chain.events", "recipient"),
  amount: columnIndex("chain.events", "amount"),
};
const NULL = "\\N";
/** The highest column each section's rows are read up to (the bulky ones come after). */
const TX_LAST = Math.max(...Object.values(TX));
const EVENT_LAST = Math.max(...Object.values(EVENT));

interface PendingBlock {
  hash: string;
  height: string;
  canonical: string;
  source: {
    txs: ActivitySource["txs"][number][];
    events: ActivitySource["events"][number][];
    maturedMinerRewards: ActivitySource["maturedMinerRewards"];
  };
}

/** Collects one partition's sections (blocks, then transactions, then events) and hands out its rows. */
export class AddressActivityRows {
  private readonly blocks = new Map<string, PendingBlock>();
  private current: PendingBlock | null = null;
  private out: string[] = [];

  /** The whole blocks section (COPY text). */
  addBlocks(copyText: Buffer): void {
    for (const line of copyText.toString("utf8").split("\n")) {
      if (line === "") continue;
      const f = line.split("\t");
      const rewards = copyFieldValue(f[BLOCK.rewards] ?? "\\N");
      let parsed: unknown = [];
      try {
        parsed = rewards === null ? [] : JSON.parse(rewards);
      } catch {
        throw new BundleFormatError("a block's matured_miner_rewards is not JSON");
      }
      if (!Array.isArray(parsed)) throw new BundleFormatError("a block's matured_miner_rewards is not a JSON array");
      this.blocks.set(f[BLOCK.hash], {
        hash: f[BLOCK.hash],
        height: f[BLOCK.height],
        canonical: f[BLOCK.canonical],
        source: { txs: [], events: [], maturedMinerRewards: parsed },
      });
    }
  }

  /** The transactions section, passed through unchanged while its rows are read. */
  transactions(data: AsyncIterable<Buffer>): AsyncIterable<Buffer> {
    return tapRows(data, TX_LAST, (f) => {
      this.blockOf(f[TX.hash]).source.txs.push({
        sender: copyFieldValue(f[TX.sender]),
        sponsor: copyFieldValue(f[TX.sponsor]),
        recipient: copyFieldValue(f[TX.recipient]),
        contractId: copyFieldValue(f[TX.contractId]),
        fee: copyFieldValue(f[TX.fee]),
      });
    });
  }

  /** One row of the events section, split into its fields (compact-event-rows.ts hands them over). */
  eventRow(f: readonly string[]): void {
    if (f.length <= EVENT_LAST) throw new BundleFormatError("a chain.events row has fewer columns than the format's");
    const block = this.blockOf(f[EVENT.hash]);
    if (this.current !== block) {
      if (this.current !== null) this.finish(this.current);
      this.current = block;
    }
    // Only a committed event with a party counts (addressActivity): the others are not kept.
    if (f[EVENT.committed] !== "t" || (f[EVENT.sender] === NULL && f[EVENT.recipient] === NULL)) return;
    block.source.events.push({
      committed: true,
      type: copyFieldValue(f[EVENT.type]) as EventType,
      sender: copyFieldValue(f[EVENT.sender]),
      recipient: copyFieldValue(f[EVENT.recipient]),
      amount: copyFieldValue(f[EVENT.amount]),
    });
  }

  /** Every row of the partition (COPY text of ADDRESS_ACTIVITY_COLUMNS), once all sections are read. */
  rows(): Buffer {
    for (const block of [...this.blocks.values()]) this.finish(block);
    this.current = null;
    const text = this.out.join("");
    this.out = [];
    return Buffer.from(text, "utf8");
  }

  private blockOf(hash: string): PendingBlock {
    const block = this.blocks.get(hash);
    if (!block) throw new BundleFormatError("a row names a block the bundle does not carry");
    return block;
  }

  private finish(block: PendingBlock): void {
    let rows: ReturnType<typeof addressActivity>;
    try {
      rows = addressActivity(block.source);
    } catch (err) {
      // BigInt of an amount or fee that is not a whole number.
      throw new BundleFormatError(`block ${block.hash}: ${(err as Error).message}`);
    }
    const head = `${block.hash}\t`;
    const tail = `\t${block.height}\t${block.canonical}\t`;
    for (const r of rows) {
      this.out.push(`${head}${copyField(r.address)}${tail}${r.received}\t${r.sent}\t${r.fees}\t${r.minerRewards}\n`);
    }
    this.blocks.delete(block.hash);
  }
}

/**
 * Passes COPY text chunks through unchanged and hands `onRow` the fields 0..lastField of each row
 * (rows may be cut anywhere across chunks). Only the leading fields are decoded: the bulky ones
 * (raw transactions, payloads) come after them and are never turned into strings.
 */
export async function* tapRows(
  data: AsyncIterable<Buffer>,
  lastField: number,
  onRow: (fields: string[]) => void,
): AsyncIterable<Buffer> {
  let rest: Buffer = Buffer.alloc(0);
  for await (const chunk of data) {
    let start = 0;
    if (rest.length > 0) {
      // Only the row cut across chunks is copied whole.
      const nl = chunk.indexOf(10);
      if (nl === -1) {
        rest = Buffer.concat([rest, chunk]);
        yield chunk;
        continue;
      }
      const row = Buffer.concat([rest, chunk.subarray(0, nl)]);
      onRow(leadingFields(row, 0, row.length, lastField));
      start = nl + 1;
    }
    for (let end = chunk.indexOf(10, start); end !== -1; end = chunk.indexOf(10, start)) {
      onRow(leadingFields(chunk, start, end, lastField));
      start = end + 1;
    }
    rest = start < chunk.length ? Buffer.from(chunk.subarray(start)) : Buffer.alloc(0);
    yield chunk;
  }
  if (rest.length > 0) onRow(leadingFields(rest, 0, rest.length, lastField));
}

function leadingFields(buf: Buffer, start: number, end: number, lastField: number): string[] {
  // One string for the leading fields: the tab after the last one wanted ends it.
  let stop = start - 1;
  for (let n = 0; n <= lastField; n++) {
    stop = buf.indexOf(9, stop + 1);
    if (stop === -1 || stop > end) {
      stop = end;
      break;
    }
  }
  const fields = buf.toString("utf8", start, stop).split("\t", lastField + 1);
  if (fields.length <= lastField) throw new BundleFormatError("a row has fewer columns than its section declares");
  return fields;
}
