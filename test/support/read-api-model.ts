/**
 * Expected Index/Streams events computed from raw observer requests, for the read-API suites.
 * Deliberately literal and independent of runtime/: the canonical chain comes from the test's
 * own chain model (test/support/chain-model.ts); the per-event fields are read straight from the
 * node's JSON. Also: a tiny SSE client over fetch (eventsource-parser) and fixture loaders.
 */
import path from "node:path";
import { type RawRequest, expectedChain } from "./chain-model.js";
import { FIXTURES_DIR, hasFixtures, readReplayTsv } from "./fixtures.js";

export interface ModelEvent {
  cursor: string;
  block_height: number;
  event_index: number;
  block_hash: string;
  index_block_hash: string;
  tx_id: string;
  tx_index: number;
  event_type: string;
  contract_id: string | null;
  asset_identifier: string | null;
  sender: string | null;
  recipient: string | null;
  topic: string | null;
}

// biome-ignore lint/suspicious/noExplicitAny: raw node JSON
type Json = any;

export interface ModelChain {
  /** Canonical committed events in cursor order. */
  events: ModelEvent[];
  /** index_block_hash of every stored block that is not canonical. */
  orphanedHashes: Set<string>;
  /** Canonical blocks by height (first body seen per hash). */
  canonicalBlocks: Json[];
  tipHeight: number | null;
}

/** The Index/Streams view of a list of observer requests. */
export function modelChain(requests: RawRequest[]): ModelChain {
  const chain = expectedChain(requests);
  const blocks = new Map<string, Json>();
  for (const r of requests) {
    if (r.path !== "/new_block") continue;
    const b = JSON.parse(r.body);
    if (!blocks.has(b.index_block_hash)) blocks.set(b.index_block_hash, b);
  }
  const canonicalBlocks = [...blocks.values()]
    .filter((b) => chain.canonicalHashes.has(b.index_block_hash))
    .sort((a, b) => a.block_height - b.block_height);
  const events: ModelEvent[] = [];
  for (const b of canonicalBlocks) {
    const txIndex = new Map<string, number>(b.transactions.map((t: Json) => [t.txid.toLowerCase(), t.tx_index]));
    const known = b.events
      .filter((e: Json) => NODE_TYPE_TO_OURS[e.type])
      .map((e: Json) => ({ e, txi: txIndex.get(e.txid.toLowerCase()) as number }))
      .sort((x: Json, y: Json) => x.txi - y.txi || x.e.event_index - y.e.event_index);
    known.forEach(({ e, txi }: Json, ordinal: number) => {
      if (!e.committed) return;
      const type = NODE_TYPE_TO_OURS[e.type];
      const body = e[e.type];
      const ev: ModelEvent = {
        cursor: `${b.block_height}:${ordinal}`,
        block_height: b.block_height,
        event_index: ordinal,
        block_hash: b.block_hash.toLowerCase(),
        index_block_hash: b.index_block_hash,
        tx_id: e.txid.toLowerCase(),
        tx_index: txi,
        event_type: type,
        contract_id: null,
        asset_identifier: null,
        sender: null,
        recipient: null,
        topic: null,
      };
      if (type.startsWith("stx_")) {
        ev.asset_identifier = "STX";
        ev.sender = type === "stx_lock" ? body.locked_address : (body.sender ?? null);
        ev.recipient = body.recipient ?? null;
      } else if (type === "print") {
        ev.contract_id = body.contract_identifier;
        ev.topic = body.topic;
      } else {
        ev.asset_identifier = body.asset_identifier;
        ev.contract_id = body.asset_identifier.split("::")[0];
        ev.sender = type.endsWith("_mint") ? null : body.sender;
        ev.recipient = type.endsWith("_burn") ? null : body.recipient;
      }
      events.push(ev);
    });
  }
  const orphanedHashes = new Set([...blocks.keys()].filter((h) => !chain.canonicalHashes.has(h)));
  return { events, orphanedHashes, canonicalBlocks, tipHeight: chain.tipHeight };
}

/** The fields of an API event the model predicts. */
export function pick(e: Record<string, unknown>): ModelEvent {
  return {
    cursor: e.cursor as string,
    block_height: e.block_height as number,
    event_index: e.event_index as number,
    block_hash: e.block_hash as string,
    index_block_hash: e.index_block_hash as string,
    tx_id: e.tx_id as string,
    tx_index: e.tx_index as number,
    event_type: e.event_type as string,
    contract_id: e.contract_id as string | null,
    asset_identifier: e.asset_identifier as string | null,
    sender: e.sender as string | null,
    recipient: e.recipient as string | null,
    topic: e.topic as string | null,
  };
}

/** Observer replay TSVs of the stacks-blockchain-api fixtures ([] without fixtures). */
export function replayFixtures(): { name: string; requests: RawRequest[] }[] {
  if (!hasFixtures) return [];
  const names = [
    "mainnet-reorg-scenario1.tsv",
    "mainnet-reorg-scenario2.tsv",
    "mainnet-out-of-order-microblock.tsv",
    "poisonmicroblock.tsv",
    "balance-reorg.tsv.gz",
    "mainnet-block0.tsv",
    "epoch-3-transition.tsv.gz",
    "regtest-env-pox-4-out-of-order-multisig-tx.tsv.gz",
    "fuzzed-transactions-1.tsv",
  ];
  return names.map((name) => ({
    name,
    requests: readReplayTsv(path.join(FIXTURES_DIR, "observer/stacks-blockchain-api", name)).map((r) => ({
      path: r.path,
      body: r.body,
    })),
  }));
}

/** One received SSE frame (events and comments). */
export { openSse, type SseClient, type SseItem } from "./sse.js";
import type { SseItem } from "./sse.js";
import { NODE_TYPE_TO_OURS } from "./chain-model.js";

/** Applies the SSE client contract: events append; a reorg drops everything at or above its fork point. */
export function applyFrames(items: SseItem[]): {
  events: Record<string, unknown>[];
  reorgs: Record<string, unknown>[];
} {
  const events: Record<string, unknown>[] = [];
  const reorgs: Record<string, unknown>[] = [];
  for (const item of items) {
    if (item.kind !== "event") continue;
    const data = JSON.parse(item.data);
    if (item.event === "reorg") {
      reorgs.push(data);
      const fork = data.fork_point_height as number;
      while (events.length && (events[events.length - 1].block_height as number) >= fork) events.pop();
    } else {
      events.push(data);
    }
  }
  return { events, reorgs };
}
