// Structural checks of generated payloads: transactions, Clarity values, event numbering, chain links, ground truth.
import { createHash } from "node:crypto";
import { cvToString, deserializeTransaction, hexToCV, serializeCV } from "@stacks/transactions";
import { c32address } from "c32check";
import { beforeAll, describe, expect, it } from "vitest";
import { NETWORK_CONTRACTS } from "../../../runtime/config/networks.js";
import { type GroundTruth, type SimPayload, simulateChain } from "../../../runtime/simulator/index.js";
import { REWARD_MATURITY } from "../../../runtime/simulator/miner-rewards.js";
import {
  type NodeBlock,
  blocksOf,
  canonicalChain,
  countEvents,
  eventsInOrder,
} from "../../support/simulator-blocks.js";

const OPTIONS = {
  seed: "payload-checks",
  blocks: 150,
  eventsPerBlock: 14,
  accounts: 8,
  forkRate: 0.2,
  abortRate: 0.05,
};

let payloads: SimPayload[];
let truth: GroundTruth;
let blocks: NodeBlock[];
let canonical: NodeBlock[];

beforeAll(() => {
  ({ payloads, truth } = simulateChain(OPTIONS));
  blocks = blocksOf(payloads);
  canonical = canonicalChain(blocks);
});

function sha512_256(hex: string): string {
  return `0x${createHash("sha512-256")
    .update(Buffer.from(hex.slice(2), "hex"))
    .digest("hex")}`;
}

describe("generated transactions", () => {
  it("deserialize, re-serialize to the same bytes, and hash to the payload txid", () => {
    let count = 0;
    for (const block of blocks) {
      block.transactions.forEach((tx, i) => {
        expect(tx.tx_index).toBe(i);
        const decoded = deserializeTransaction(tx.raw_tx);
        expect(`0x${decoded.serialize()}`).toBe(tx.raw_tx);
        expect(sha512_256(tx.raw_tx)).toBe(tx.txid);
        count++;
      });
    }
    expect(count).toBeGreaterThan(500);
  });

  it("open each tenure with tenure-change and coinbase, and deploy the devnet contracts in the first block", () => {
    const first = deserializeTransaction(blocks[0].transactions[0].raw_tx);
    const second = deserializeTransaction(blocks[0].transactions[1].raw_tx);
    expect(first.payload.payloadType).toBe(7); // tenure change
    expect(second.payload.payloadType).toBe(8); // nakamoto coinbase
    const deployed = blocks[0].transactions
      .map((tx) => deserializeTransaction(tx.raw_tx).payload)
      .filter((p) => p.payloadType === 6)
      .map((p) => ("contractName" in p ? p.contractName.content : ""));
    expect(deployed).toEqual(
      expect.arrayContaining(["BNS-V2", "sbtc-registry", "sbtc-token", "sim-token-alpha", "sim-nft-gamma"]),
    );
  });

  it("give every sender contiguous nonces along the canonical chain", () => {
    const next = new Map<string, bigint>();
    for (const block of canonical) {
      for (const tx of block.transactions) {
        const condition = deserializeTransaction(tx.raw_tx).auth.spendingCondition;
        const expected = next.get(condition.signer) ?? 0n;
        expect(BigInt(condition.nonce)).toBe(expected);
        next.set(condition.signer, expected + 1n);
      }
    }
  });
});

describe("Clarity values", () => {
  it("every raw_result and raw_value decodes with hexToCV and matches serializeCV byte for byte", () => {
    let values = 0;
    for (const block of blocks) {
      for (const tx of block.transactions) {
        expect(`0x${serializeCV(hexToCV(tx.raw_result))}`).toBe(tx.raw_result);
        values++;
      }
      for (const event of block.events) {
        const body = event[event.type] as { raw_value?: string } | undefined;
        if (!body?.raw_value) continue;
        expect(`0x${serializeCV(hexToCV(body.raw_value))}`).toBe(body.raw_value);
        values++;
      }
    }
    expect(values).toBeGreaterThan(1000);
  });
});

describe("events", () => {
  it("are numbered block-wide 0..n-1, emitted unsorted, and point at a transaction of the block", () => {
    let shuffled = 0;
    for (const block of blocks) {
      const indices = block.events.map((e) => e.event_index);
      expect([...indices].sort((a, b) => a - b)).toEqual(indices.map((_, i) => i));
      if (indices.some((value, i) => value !== i)) shuffled++;
      const txids = new Set(block.transactions.map((tx) => tx.txid));
      for (const event of block.events) expect(txids.has(event.txid)).toBe(true);
      // Execution order follows transaction order.
      const txIndex = new Map(block.transactions.map((tx) => [tx.txid, tx.tx_index]));
      const order = eventsInOrder(block).map((e) => txIndex.get(e.txid) as number);
      expect(order).toEqual([...order].sort((a, b) => a - b));
    }
    expect(shuffled).toBeGreaterThan(blocks.length / 2);
  });

  it("carry committed:false exactly for post-condition aborts", () => {
    let aborted = 0;
    for (const block of blocks) {
      const status = new Map(block.transactions.map((tx) => [tx.txid, tx.status]));
      for (const event of block.events) {
        expect(event.committed).toBe(status.get(event.txid) === "success");
        if (!event.committed) aborted++;
      }
    }
    expect(aborted).toBeGreaterThan(0);
  });
});

describe("chain", () => {
  it("matures each tenure's coinbase and opening-block fees REWARD_MATURITY tenures later on the same branch, to the coinbase's recipient", () => {
    const byHash = new Map(blocks.map((b) => [b.index_block_hash, b]));
    // A tenure opens with a Nakamoto coinbase (payload type 8) among the block's transactions.
    const coinbases = new Map(
      blocks.map((b) => [
        b.index_block_hash,
        b.transactions.map((t) => deserializeTransaction(t.raw_tx)).find((tx) => tx.payload.payloadType === 8),
      ]),
    );
    const coinbaseOf = (block: NodeBlock) => coinbases.get(block.index_block_hash);
    let matured = 0;
    let orphanedMatured = 0;
    const canonicalHashes = new Set(canonical.map((b) => b.index_block_hash));
    for (const block of blocks) {
      // The tenure-opening blocks of this block's branch, newest first.
      const openings: NodeBlock[] = [];
      for (let b: NodeBlock | undefined = block; b; b = byHash.get(b.parent_index_block_hash))
        if (coinbaseOf(b)) openings.push(b);
      const rewarded = coinbaseOf(block) ? openings[REWARD_MATURITY] : undefined;
      if (rewarded === undefined) {
        expect(block.matured_miner_rewards).toEqual([]);
        continue;
      }
      const coinbase = coinbaseOf(rewarded) as ReturnType<typeof deserializeTransaction>;
      const payload = coinbase.payload as { recipient?: { value: string } };
      const miner = c32address(26, coinbase.auth.spendingCondition.signer);
      let fees = 0n;
      for (const t of rewarded.transactions)
        fees += BigInt(deserializeTransaction(t.raw_tx).auth.spendingCondition.fee);
      expect(block.matured_miner_rewards).toEqual([
        {
          recipient: payload.recipient?.value ?? miner,
          miner_address: miner,
          coinbase_amount: "1000000000",
          tx_fees_anchored: String(fees),
          tx_fees_streamed_confirmed: "0",
          tx_fees_streamed_produced: "0",
          from_stacks_block_hash: rewarded.block_hash,
          from_index_consensus_hash: rewarded.index_block_hash,
        },
      ]);
      matured++;
      if (!canonicalHashes.has(block.index_block_hash)) orphanedMatured++;
    }
    expect(matured).toBeGreaterThan(10);
    expect(orphanedMatured, "an orphaned block carries a matured reward").toBeGreaterThan(0);
  });

  it("links every block to a block seen before (the first to the pre-start parent)", () => {
    const seen = new Set<string>();
    blocks.forEach((block, i) => {
      if (i > 0) expect(seen.has(block.parent_index_block_hash)).toBe(true);
      expect(seen.has(block.index_block_hash)).toBe(false);
      seen.add(block.index_block_hash);
    });
    const byHash = new Map(blocks.map((b) => [b.index_block_hash, b]));
    for (const block of blocks.slice(1)) {
      const parent = byHash.get(block.parent_index_block_hash) as NodeBlock;
      expect(block.block_height).toBe(parent.block_height + 1);
      expect(block.parent_block_hash).toBe(parent.block_hash);
      expect(block.burn_block_height).toBeGreaterThanOrEqual(parent.burn_block_height);
      expect(block.block_time).toBeGreaterThan(parent.block_time);
    }
  });

  it("derives index_block_hash from block_hash and consensus_hash", () => {
    for (const block of blocks) {
      expect(sha512_256(`0x${block.block_hash.slice(2)}${block.consensus_hash.slice(2)}`)).toBe(block.index_block_hash);
    }
  });

  it("announces each burn block, linked to its parent, before the first block on it", () => {
    const announced = new Map<string, number>();
    let previous: { hash: string; height: number } | null = null;
    for (const payload of payloads) {
      const body = payload.body as Record<string, unknown>;
      if (payload.path === "/new_burn_block") {
        if (previous) {
          expect(body.parent_burn_block_hash).toBe(previous.hash);
          expect(body.burn_block_height).toBe(previous.height + 1);
        }
        previous = { hash: body.burn_block_hash as string, height: body.burn_block_height as number };
        announced.set(previous.hash, previous.height);
      } else {
        expect(announced.get(body.burn_block_hash as string)).toBe(body.burn_block_height);
      }
    }
  });

  it("has forks that win and forks that lose", () => {
    const outcomes = new Set(truth.forks.map((f) => f.outcome));
    expect(outcomes).toEqual(new Set(["won", "lost"]));
    expect(new Set(blocks.map((b) => b.block_height)).size).toBeLessThan(blocks.length);
    expect(truth.orphaned.length).toBeGreaterThan(0);
  });
});

describe("ground truth", () => {
  it("names the canonical chain the consumer's rule derives", () => {
    expect(truth.canonical.map((b) => b.indexBlockHash)).toEqual(canonical.map((b) => b.index_block_hash));
    expect(truth.canonical.map((b) => b.height)).toEqual(canonical.map((_, i) => i + 1));
    expect(truth.tip.height).toBe(OPTIONS.blocks);
    expect(truth.newBlockCount).toBe(blocks.length);
    expect(truth.payloadCount).toBe(payloads.length);
  });

  it("counts committed canonical events and transactions like the test does", () => {
    expect(truth.eventCounts).toEqual(countEvents(canonical));
    for (const [type, count] of Object.entries(truth.eventCounts)) expect(count, type).toBeGreaterThan(0);
    expect(truth.txCount).toBe(canonical.reduce((n, b) => n + b.transactions.length, 0));
    expect(truth.abortedTxCount).toBe(
      canonical.reduce((n, b) => n + b.transactions.filter((t) => t.status !== "success").length, 0),
    );
  });

  it("keeps BNS-V2 lifecycles coherent and states each name's final owner", () => {
    const bns = NETWORK_CONTRACTS.devnet.bnsContractId;
    const owners = new Map<string, string | null>();
    for (const block of canonical) {
      for (const event of eventsInOrder(block)) {
        const body = event.contract_event as { contract_identifier: string; raw_value: string } | undefined;
        if (!event.committed || body?.contract_identifier !== bns) continue;
        const text = cvToString(hexToCV(body.raw_value));
        const topic = /\(topic "([a-z-]+)"\)/.exec(text)?.[1] as string;
        const value = hexToCV(body.raw_value) as { value: Record<string, { value: unknown }> };
        const name = value.value.name as unknown as {
          value: { name: { value: string }; namespace: { value: string } };
        };
        const fqn = `${Buffer.from(name.value.name.value, "hex").toString()}.${Buffer.from(name.value.namespace.value, "hex").toString()}`;
        if (topic === "new-name") expect(owners.has(fqn)).toBe(false);
        else expect(owners.get(fqn), `${topic} ${fqn}`).toBeTypeOf("string");
        owners.set(fqn, topic === "burn-name" ? null : (value.value.owner.value as string));
      }
    }
    expect(truth.bnsNames).toEqual(Object.fromEntries(owners));
    const finals = Object.values(truth.bnsNames);
    expect(finals.some((o) => o === null)).toBe(true);
    expect(finals.some((o) => typeof o === "string")).toBe(true);
  });

  it("lists the canonical sBTC registry prints by topic, with the ft_mint beside each completed deposit", () => {
    const registry = NETWORK_CONTRACTS.devnet.sbtcRegistryContractId;
    const byTxid = new Map(canonical.flatMap((b) => b.events.map((e) => [`${e.txid}:${e.event_index}`, e] as const)));
    let listed = 0;
    for (const [topic, prints] of Object.entries(truth.sbtcPrints)) {
      for (const print of prints) {
        const event = byTxid.get(`${print.txId}:${print.eventIndex}`);
        expect(event?.contract_event).toMatchObject({ contract_identifier: registry });
        expect((print.value as Record<string, unknown>).topic).toBe(topic);
        if (topic === "completed-deposit") {
          const block = canonical.find((b) => b.index_block_hash === print.indexBlockHash) as NodeBlock;
          const mint = block.events.find((e) => e.txid === print.txId && e.type === "ft_mint_event");
          expect(mint?.ft_mint_event).toMatchObject({ asset_identifier: NETWORK_CONTRACTS.devnet.sbtcAssetIdentifier });
        }
        listed++;
      }
    }
    const committedRegistryPrints = canonical
      .flatMap((b) => b.events)
      .filter(
        (e) =>
          e.committed &&
          (e.contract_event as { contract_identifier?: string } | undefined)?.contract_identifier === registry,
      );
    expect(listed).toBe(committedRegistryPrints.length);
    expect(Object.keys(truth.sbtcPrints)).toEqual(expect.arrayContaining(["completed-deposit", "withdrawal-create"]));
  });
});
