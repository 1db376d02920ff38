/**
 * Ground truth of a simulation, computed the way a consumer must: canonical chain = ancestry of the
 * best tip (highest block, ties broken by first seen); counts, BNS names and sBTC prints over it only;
 * balances from the simulator's own ledger at that tip.
 */
import { EVENT_TYPES, type ClarityJson, type EventType } from "../chain/types.js";
import type { BnsOp } from "./action-kit.js";

export interface SbtcPrintTruth {
  txId: string;
  blockHeight: number;
  indexBlockHash: string;
  /** The node's event_index of the print. */
  eventIndex: number;
  value: ClarityJson;
}

/** What the simulator knows about one emitted block (committed effects only). */
export interface BlockSummary {
  height: number;
  indexBlockHash: string;
  blockHash: string;
  parentIndexBlockHash: string;
  txCount: number;
  txCountByType: Record<string, number>;
  abortedTxCount: number;
  eventCounts: Record<EventType, number>;
  uncommittedEventCount: number;
  bnsOps: BnsOp[];
  sbtcPrints: { topic: string; print: SbtcPrintTruth }[];
}

export interface ForkRecord {
  /** Height of the common ancestor. */
  forkPointHeight: number;
  /** Blocks of the old branch above the fork point when the competitor appeared. */
  depth: number;
  outcome: "won" | "lost";
  branch: string[];
}

export interface GroundTruth {
  options: Record<string, unknown>;
  payloadCount: number;
  newBlockCount: number;
  newBurnBlockCount: number;
  tip: { height: number; indexBlockHash: string };
  canonical: { height: number; indexBlockHash: string; blockHash: string }[];
  orphaned: { height: number; indexBlockHash: string }[];
  forks: ForkRecord[];
  txCount: number;
  txCountByType: Record<string, number>;
  abortedTxCount: number;
  /** Committed events on the canonical chain, by our type names. */
  eventCounts: Record<EventType, number>;
  eventCount: number;
  uncommittedEventCount: number;
  /** fqn → owner address, or null once burned. */
  bnsNames: Record<string, string | null>;
  /** sBTC registry prints on the canonical chain, by topic, in chain order. */
  sbtcPrints: Record<string, SbtcPrintTruth[]>;
  /**
   * Non-zero balances at the tip, keyed as asset-holdings keys its rows: `stx|STX|<address>` (µSTX:
   * genesis, transfers, mints, burns, fees paid, matured miner rewards) and `ft|<asset>|<holder>`.
   */
  balances: Record<string, string>;
}

export function emptyEventCounts(): Record<EventType, number> {
  const counts = {} as Record<EventType, number>;
  for (const type of EVENT_TYPES) counts[type] = 0;
  return counts;
}

export class TruthRecorder {
  private readonly blocks: BlockSummary[] = [];
  readonly forks: ForkRecord[] = [];
  payloadCount = 0;
  newBurnBlockCount = 0;

  addBlock(summary: BlockSummary): void {
    this.blocks.push(summary);
  }

  addFork(fork: ForkRecord): void {
    this.forks.push(fork);
  }

  compute(options: Record<string, unknown>, balances: Record<string, string>): GroundTruth {
    if (this.blocks.length === 0) throw new Error("no blocks were generated");
    let best = this.blocks[0];
    for (const block of this.blocks) if (block.height > best.height) best = block;
    const byHash = new Map(this.blocks.map((b) => [b.indexBlockHash, b]));
    const chain: BlockSummary[] = [];
    for (let b: BlockSummary | undefined = best; b; b = byHash.get(b.parentIndexBlockHash)) chain.push(b);
    chain.reverse();
    const canonicalSet = new Set(chain.map((b) => b.indexBlockHash));

    const eventCounts = emptyEventCounts();
    const txCountByType: Record<string, number> = {};
    const bnsNames: Record<string, string | null> = {};
    const sbtcPrints: Record<string, SbtcPrintTruth[]> = {};
    let txCount = 0;
    let abortedTxCount = 0;
    let uncommittedEventCount = 0;
    for (const block of chain) {
      txCount += block.txCount;
      abortedTxCount += block.abortedTxCount;
      uncommittedEventCount += block.uncommittedEventCount;
      for (const [type, n] of Object.entries(block.txCountByType)) txCountByType[type] = (txCountByType[type] ?? 0) + n;
      for (const type of EVENT_TYPES) eventCounts[type] += block.eventCounts[type];
      for (const op of block.bnsOps) bnsNames[op.fqn] = op.owner;
      for (const { topic, print } of block.sbtcPrints) {
        if (!sbtcPrints[topic]) sbtcPrints[topic] = [];
        sbtcPrints[topic].push(print);
      }
    }
    return {
      options,
      payloadCount: this.payloadCount,
      newBlockCount: this.blocks.length,
      newBurnBlockCount: this.newBurnBlockCount,
      tip: { height: best.height, indexBlockHash: best.indexBlockHash },
      canonical: chain.map((b) => ({ height: b.height, indexBlockHash: b.indexBlockHash, blockHash: b.blockHash })),
      orphaned: this.blocks
        .filter((b) => !canonicalSet.has(b.indexBlockHash))
        .map((b) => ({ height: b.height, indexBlockHash: b.indexBlockHash })),
      forks: this.forks,
      txCount,
      txCountByType,
      abortedTxCount,
      eventCounts,
      eventCount: EVENT_TYPES.reduce((sum, type) => sum + eventCounts[type], 0),
      uncommittedEventCount,
      bnsNames,
      sbtcPrints,
      balances,
    };
  }
}
