/**
 * A simulated chain a newcomer believes: replaying every block (orphaned branches included, each on
 * its own ancestry) through a ledger written here from the raw payloads, no STX balance (fees
 * included, locked STX kept aside) or token balance ever goes below zero and nobody moves an NFT
 * they do not own. The genesis transaction funds every sender; the hot mix concentrates events on a
 * few contracts and holders; the simulator's own final balances (truth.json) equal this ledger's.
 * The seed is in each test's name.
 */
import { deserializeTransaction } from "@stacks/transactions";
import { describe, expect, it } from "vitest";
import { type SimulatorInput, simulateChain } from "../../../runtime/simulator/index.js";
import { type NodeBlock, blocksOf, canonicalChain, eventsInOrder } from "../../support/simulator-blocks.js";
import { expectedHoldings, feePaid } from "../../support/subgraph-expect.js";

interface Branch {
  balances: Map<string, bigint>;
  locks: Map<string, { amount: bigint; unlock: number }>;
  nfts: Map<string, string>;
}

interface Replay {
  /** Each time a balance went below zero, or below its lock, or an NFT moved without its owner. */
  violations: string[];
  /** Debits checked (so a pass is not vacuous). */
  debits: number;
  /** Tips of every block: balances at that block, keyed `stx|STX|addr` / `ft|asset|addr`. */
  at: Map<string, Branch>;
}

/** Replays blocks in arrival order, each on a copy of its parent's ledger. */
function replay(blocks: NodeBlock[]): Replay {
  const at = new Map<string, Branch>();
  const violations: string[] = [];
  let debits = 0;
  for (const block of blocks) {
    const parent = at.get(block.parent_index_block_hash);
    const branch: Branch = {
      balances: new Map(parent?.balances),
      locks: new Map(parent?.locks),
      nfts: new Map(parent?.nfts),
    };
    const burnHeight = block.burn_block_height;
    const where = (what: string) => `block ${block.block_height} ${block.index_block_hash.slice(0, 10)}: ${what}`;
    const move = (key: string, delta: bigint) => {
      const next = (branch.balances.get(key) ?? 0n) + delta;
      branch.balances.set(key, next);
      if (delta >= 0n) return;
      debits++;
      const address = key.slice(key.lastIndexOf("|") + 1);
      const lock = key.startsWith("stx|") ? branch.locks.get(address) : undefined;
      const locked = lock && lock.unlock > burnHeight ? lock.amount : 0n;
      if (next < locked) violations.push(where(`${key} = ${next} (locked ${locked})`));
    };
    const events = eventsInOrder(block);
    for (const tx of [...block.transactions].sort((a, b) => a.tx_index - b.tx_index)) {
      const { payer, fee } = feePaid(tx.raw_tx);
      if (fee > 0n) move(`stx|STX|${payer}`, -fee);
      for (const event of events) {
        if (event.txid !== tx.txid || !event.committed) continue;
        // biome-ignore lint/suspicious/noExplicitAny: raw payload JSON
        const e = event[event.type] as any;
        switch (event.type) {
          case "stx_transfer_event":
            move(`stx|STX|${e.sender}`, -BigInt(e.amount));
            move(`stx|STX|${e.recipient}`, BigInt(e.amount));
            break;
          case "stx_mint_event":
            move(`stx|STX|${e.recipient}`, BigInt(e.amount));
            break;
          case "stx_burn_event":
            move(`stx|STX|${e.sender}`, -BigInt(e.amount));
            break;
          case "stx_lock_event": {
            const amount = BigInt(e.locked_amount);
            if ((branch.balances.get(`stx|STX|${e.locked_address}`) ?? 0n) < amount)
              violations.push(where(`${e.locked_address} locks ${amount}, more than it holds`));
            branch.locks.set(e.locked_address, { amount, unlock: Number(e.unlock_height) });
            break;
          }
          case "ft_transfer_event":
            move(`ft|${e.asset_identifier}|${e.sender}`, -BigInt(e.amount));
            move(`ft|${e.asset_identifier}|${e.recipient}`, BigInt(e.amount));
            break;
          case "ft_mint_event":
            move(`ft|${e.asset_identifier}|${e.recipient}`, BigInt(e.amount));
            break;
          case "ft_burn_event":
            move(`ft|${e.asset_identifier}|${e.sender}`, -BigInt(e.amount));
            break;
          case "nft_mint_event": {
            const token = `${e.asset_identifier}|${e.raw_value}`;
            if (branch.nfts.has(token)) violations.push(where(`${token} minted twice`));
            branch.nfts.set(token, e.recipient);
            break;
          }
          case "nft_transfer_event":
          case "nft_burn_event": {
            const token = `${e.asset_identifier}|${e.raw_value}`;
            debits++;
            if (branch.nfts.get(token) !== e.sender)
              violations.push(where(`${e.sender} moves ${token} it does not own`));
            if (event.type === "nft_burn_event") branch.nfts.delete(token);
            else branch.nfts.set(token, e.recipient);
            break;
          }
        }
      }
    }
    // Matured rewards are counted after the block's transactions: the strictest order.
    for (const r of block.matured_miner_rewards) {
      const total =
        BigInt(r.coinbase_amount) +
        BigInt(r.tx_fees_anchored) +
        BigInt(r.tx_fees_streamed_confirmed) +
        BigInt(r.tx_fees_streamed_produced);
      move(`stx|STX|${r.recipient}`, total);
    }
    at.set(block.index_block_hash, branch);
  }
  return { violations, debits, at };
}

/** Share of canonical committed events carried by the `n` busiest keys (`keysOf` gives an event's keys). */
function topShare(blocks: NodeBlock[], n: number, keysOf: (type: string, body: Record<string, string>) => string[]) {
  const counts = new Map<string, number>();
  const eventKeys: string[][] = [];
  for (const block of blocks) {
    for (const event of block.events) {
      if (!event.committed) continue;
      const keys = [...new Set(keysOf(event.type, event[event.type] as Record<string, string>))];
      if (keys.length === 0) continue;
      eventKeys.push(keys);
      for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  const top = new Set(
    [...counts.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([key]) => key),
  );
  return { share: eventKeys.filter((keys) => keys.some((k) => top.has(k))).length / eventKeys.length, top };
}

/** The contract an event belongs to: the printing contract, the asset's contract, or STX itself. */
const contractKeys = (type: string, body: Record<string, string>): string[] => {
  if (type === "contract_event") return [body.contract_identifier];
  if (body.asset_identifier) return [body.asset_identifier.split("::")[0]];
  return ["STX"];
};

/** The holders whose balances an event changes (prints change none). */
const holderKeys = (type: string, body: Record<string, string>): string[] =>
  type === "contract_event" ? [] : [body.sender, body.recipient, body.locked_address].filter(Boolean);

function simulate(input: SimulatorInput) {
  const { payloads, truth } = simulateChain(input);
  const blocks = blocksOf(payloads);
  return { blocks, canonical: canonicalChain(blocks), truth };
}

const SHAPE = { blocks: 150, eventsPerBlock: 24, accounts: 12, forkRate: 0.15, abortRate: 0.05 };

describe("the simulated ledger", () => {
  const cases: [string, SimulatorInput][] = [
    ["make run's chain (seed devnet, default genesis)", { seed: "devnet", blocks: 150, forkRate: 0.1 }],
    ["a poor chain: 12 STX at genesis, so the guard decides", { ...SHAPE, seed: "ledger-poor", genesisStx: 12 }],
    ["a hot chain, 30 STX at genesis", { ...SHAPE, seed: "ledger-hot", genesisStx: 30, hotShare: 0.8 }],
  ];
  for (const [name, input] of cases) {
    it(`${name}: no balance below zero or below its lock, no NFT moved by a non-owner, on any branch`, () => {
      const { blocks, canonical, truth } = simulate(input);
      const { violations, debits, at } = replay(blocks);
      expect(violations.slice(0, 5), `seed ${input.seed}`).toEqual([]);
      expect(debits).toBeGreaterThan(1000);
      expect(truth.orphaned.length, "the chain has orphaned branches, replayed too").toBeGreaterThan(0);
      // truth.json's balances (the simulator's own ledger) are this ledger's at the tip, and what
      // asset-holdings should hold (the shared expectation over the canonical chain).
      const tip = at.get(canonical[canonical.length - 1].index_block_hash) as Branch;
      const nonZero = (entries: Iterable<[string, bigint]>) =>
        Object.fromEntries(
          [...entries]
            .filter(([, v]) => v !== 0n)
            .map(([k, v]) => [k, String(v)])
            .sort(([a], [b]) => (a < b ? -1 : 1)),
        );
      expect(truth.balances).toEqual(nonZero(tip.balances));
      expect(truth.balances).toEqual(nonZero(expectedHoldings(canonical)));
    });
  }

  it("the poor chain runs accounts down to what they hold: some STX balances end below 12 STX", () => {
    const { truth } = simulate({ ...SHAPE, seed: "ledger-poor", genesisStx: 12 });
    const stx = Object.entries(truth.balances).filter(([k]) => k.startsWith("stx|"));
    expect(stx.some(([, v]) => BigInt(v) < 12_000_000n)).toBe(true);
  });

  it("opens the first block with a genesis transaction from the boot address minting to every sender", () => {
    const { blocks } = simulate({ seed: "genesis", blocks: 3, eventsPerBlock: 10, accounts: 5, genesisStx: 1234 });
    const first = blocks[0];
    const genesis = first.transactions
      .map((t) => ({ t, tx: deserializeTransaction(t.raw_tx) }))
      .find(({ tx }) => tx.auth.spendingCondition.signer === "00".repeat(20));
    expect(genesis).toBeDefined();
    const { t, tx } = genesis as NonNullable<typeof genesis>;
    expect(String(tx.auth.spendingCondition.fee)).toBe("0");
    expect(tx.payload.payloadType).toBe(0); // token transfer, as mainnet's genesis
    const mints = first.events.filter((e) => e.txid === t.txid);
    expect(mints.every((e) => e.type === "stx_mint_event" && e.committed)).toBe(true);
    expect(new Set(mints.map((e) => (e.stx_mint_event as { amount: string }).amount))).toEqual(new Set(["1234000000"]));
    // Every account that pays a fee anywhere in the chain was funded by it.
    const funded = new Set(mints.map((e) => (e.stx_mint_event as { recipient: string }).recipient));
    for (const block of blocks)
      for (const tx of block.transactions) {
        const { payer, fee } = feePaid(tx.raw_tx);
        if (fee > 0n) expect(funded.has(payer), payer).toBe(true);
      }
    expect(funded.size).toBe(5 + 2);
  });

  it("the hot mix puts ≥ its share of events on 5 contracts and on 5 holders; the default mix does not", () => {
    const hotShare = 0.7;
    const hot = simulate({ ...SHAPE, seed: "hot-share", hotShare }).canonical;
    const plain = simulate({ ...SHAPE, seed: "hot-share" }).canonical;
    const hotContracts = topShare(hot, 5, contractKeys);
    const hotHolders = topShare(hot, 5, holderKeys);
    expect(hotContracts.share).toBeGreaterThanOrEqual(hotShare);
    expect(hotHolders.share).toBeGreaterThanOrEqual(hotShare);
    // The pool is among the busiest of both.
    const pool = [...hotContracts.top].find((c) => c.endsWith(".sim-pool-sbtc-stx"));
    expect(pool).toBeDefined();
    expect(hotHolders.top.has(pool as string)).toBe(true);
    // Without the hot mix the same seed and shape spread events more widely.
    expect(topShare(plain, 5, holderKeys).share).toBeLessThan(hotHolders.share - 0.1);
    expect(topShare(plain, 5, contractKeys).share).toBeLessThan(hotContracts.share);
  });
});
