/**
 * An independent, deliberately literal model of what ingestion should produce from a list of
 * observer requests: the canonical chain (ancestry of the first-seen highest block) and per-type
 * committed event counts over it. Written from the raw JSON, sharing no code with runtime/.
 */
export interface RawRequest {
  path: string;
  body: string;
}

/** The node's event type names → ours, written out literally for tests (independent of the decoder). */
export const NODE_TYPE_TO_OURS: Record<string, string> = {
  stx_transfer_event: "stx_transfer",
  stx_mint_event: "stx_mint",
  stx_burn_event: "stx_burn",
  stx_lock_event: "stx_lock",
  ft_transfer_event: "ft_transfer",
  ft_mint_event: "ft_mint",
  ft_burn_event: "ft_burn",
  nft_transfer_event: "nft_transfer",
  nft_mint_event: "nft_mint",
  nft_burn_event: "nft_burn",
  contract_event: "print",
};

/** SIP-005 payload type bytes → our tx_type names, written out literally for tests. */
export const PAYLOAD_TYPE_NAMES: Record<number, string> = {
  0: "token_transfer",
  1: "smart_contract",
  2: "contract_call",
  3: "poison_microblock",
  4: "coinbase",
  5: "coinbase_to_alt_recipient",
  6: "versioned_smart_contract",
  7: "tenure_change",
  8: "nakamoto_coinbase",
};

// biome-ignore lint/suspicious/noExplicitAny: raw fixture JSON
type RawBlock = any;

export interface ExpectedChain {
  canonicalHashes: Set<string>;
  tipHash: string | null;
  tipHeight: number | null;
  storedBlocks: number;
  canonicalTxs: number;
  eventCounts: Record<string, number>;
  /** Every canonical committed event as `${height}:${txid}:${nodeEventIndex}`. */
  eventKeys: string[];
  /** Fork points (lowest orphaned height = common ancestor's height + 1, README "Reorgs") of the
   * tip switches that orphaned at least one block, in arrival order. */
  reorgForkPoints: number[];
}

export function expectedChain(requests: RawRequest[]): ExpectedChain {
  const blocks = new Map<string, RawBlock>(); // first body per index_block_hash wins
  for (const r of requests) {
    if (r.path !== "/new_block") continue;
    const b = JSON.parse(r.body);
    if (!blocks.has(b.index_block_hash)) blocks.set(b.index_block_hash, b);
  }
  // Canonical = ancestry of the first-seen highest block. Where that ancestry reaches a block whose
  // parent was never delivered (a gap), the chain below the gap is chosen by the same rule among
  // the lower blocks: history is never orphaned by a block we cannot see.
  const canonical = new Set<string>();
  let candidates = [...blocks.values()];
  let tip: RawBlock | null = null;
  while (candidates.length) {
    let best: RawBlock | null = null;
    for (const b of candidates) if (!best || b.block_height > best.block_height) best = b;
    tip ??= best;
    let lowest = best;
    for (let cur = best; cur; cur = blocks.get(cur.parent_index_block_hash)) {
      canonical.add(cur.index_block_hash);
      lowest = cur;
    }
    candidates = candidates.filter((b) => b.block_height < lowest.block_height);
  }

  const eventCounts: Record<string, number> = {};
  const eventKeys: string[] = [];
  let canonicalTxs = 0;
  for (const hash of canonical) {
    const b = blocks.get(hash);
    canonicalTxs += b.transactions.length;
    for (const e of b.events) {
      if (!e.committed) continue;
      const t = NODE_TYPE_TO_OURS[e.type];
      if (!t) continue;
      eventCounts[t] = (eventCounts[t] ?? 0) + 1;
      eventKeys.push(`${b.block_height}:${e.txid}:${e.event_index}`);
    }
  }
  // Replays arrivals: the tip moves only to a strictly higher block; a move whose parent is not
  // the old tip orphans the old tip's blocks above the common ancestor.
  const reorgForkPoints: number[] = [];
  const seen = new Map<string, RawBlock>();
  let cur: RawBlock | null = null;
  for (const b of blocks.values()) {
    seen.set(b.index_block_hash, b);
    if (!cur || b.parent_index_block_hash === cur.index_block_hash) {
      cur = b;
      continue;
    }
    if (b.block_height <= cur.block_height) continue;
    const oldAncestry = new Set<string>();
    for (let x = cur; x; x = seen.get(x.parent_index_block_hash)) oldAncestry.add(x.index_block_hash);
    let fork: RawBlock | undefined = seen.get(b.parent_index_block_hash);
    while (fork && !oldAncestry.has(fork.index_block_hash)) fork = seen.get(fork.parent_index_block_hash);
    if (fork && fork.block_height < cur.block_height) reorgForkPoints.push(fork.block_height + 1);
    cur = b;
  }
  return {
    reorgForkPoints,
    canonicalHashes: canonical,
    tipHash: tip?.index_block_hash ?? null,
    tipHeight: tip?.block_height ?? null,
    storedBlocks: blocks.size,
    canonicalTxs,
    eventCounts,
    eventKeys: eventKeys.sort(),
  };
}

export interface FinalityStep {
  /** The finality boundary after the request (README "Finality"). */
  finalizedHeight: number | null;
  /** Reorgs so far that orphaned a height once reported final. */
  reorgsBelowFinality: number;
  /** The highest burn height seen (burn blocks and blocks) minus the tip block's; null before a block. */
  burnLag: number | null;
}

export interface ExpectedFinality {
  /** One entry per request, in order. */
  steps: FinalityStep[];
  /** Per reorg (a tip switch that orphaned blocks), in order: its fork point and whether it went below finality. */
  reorgs: { forkPointHeight: number; belowFinality: boolean }[];
}

/**
 * The finality boundary after each request, written literally from the rule in README
 * "Finality": the highest canonical height whose block's burn height is at least `confirmations`
 * below the canonical tip block's burn height, and below every non-canonical branch whose newest
 * block ties the tip's height (lowest height of the branch's non-canonical blocks). A reorg goes
 * below finality when it orphans a height at or below the highest boundary reported since the
 * last such reorg.
 */
export function expectedFinality(requests: RawRequest[], confirmations: number): ExpectedFinality {
  const seen = new Map<string, RawBlock>();
  const steps: FinalityStep[] = [];
  const reorgs: ExpectedFinality["reorgs"] = [];
  let tip: RawBlock | null = null;
  let finalized: number | null = null;
  let highWater: number | null = null;
  let belowCount = 0;
  let burnTip: number | null = null;
  const ancestry = (b: RawBlock | null) => {
    const out = new Set<string>();
    for (let x = b; x; x = seen.get(x.parent_index_block_hash)) out.add(x.index_block_hash);
    return out;
  };
  for (const r of requests) {
    let reorgedBelow = false;
    if (r.path === "/new_block" || r.path === "/new_burn_block") {
      const burn = JSON.parse(r.body).burn_block_height;
      if (typeof burn === "number") burnTip = Math.max(burnTip ?? burn, burn);
    }
    if (r.path === "/new_block") {
      const b = JSON.parse(r.body);
      if (!seen.has(b.index_block_hash)) {
        seen.set(b.index_block_hash, b);
        if (!tip || b.parent_index_block_hash === tip.index_block_hash) tip = b;
        else if (b.block_height > tip.block_height) {
          const newChain = ancestry(b);
          const orphanedHeights: number[] = [];
          for (let x: RawBlock | undefined = tip; x && !newChain.has(x.index_block_hash); ) {
            orphanedHeights.push(x.block_height);
            x = seen.get(x.parent_index_block_hash);
          }
          if (orphanedHeights.length) {
            // The lowest height the new branch replaces: its lowest block not on the old chain.
            const oldChain = ancestry(tip);
            let floor = b.block_height;
            for (let x: RawBlock | undefined = b; x && !oldChain.has(x.index_block_hash); ) {
              floor = x.block_height;
              x = seen.get(x.parent_index_block_hash);
            }
            const below = highWater !== null && floor <= highWater;
            reorgs.push({ forkPointHeight: floor, belowFinality: below });
            if (below) {
              belowCount++;
              reorgedBelow = true;
            }
          }
          tip = b;
        }
      }
    }
    if (tip) {
      const canonical = ancestry(tip);
      let contested = Number.POSITIVE_INFINITY;
      for (const b of seen.values()) {
        if (canonical.has(b.index_block_hash) || b.block_height !== tip.block_height) continue;
        for (let x: RawBlock | undefined = b; x && !canonical.has(x.index_block_hash); ) {
          contested = Math.min(contested, x.block_height);
          x = seen.get(x.parent_index_block_hash);
        }
      }
      const ceiling = tip.burn_block_height - confirmations;
      finalized = null;
      for (const hash of canonical) {
        const b = seen.get(hash);
        if (
          b.burn_block_height <= ceiling &&
          b.block_height < contested &&
          (finalized === null || b.block_height > finalized)
        )
          finalized = b.block_height;
      }
    }
    highWater = reorgedBelow ? finalized : finalized === null ? highWater : Math.max(highWater ?? finalized, finalized);
    const burnLag = tip === null || burnTip === null ? null : Math.max(0, burnTip - tip.burn_block_height);
    steps.push({ finalizedHeight: finalized, reorgsBelowFinality: belowCount, burnLag });
  }
  return { steps, reorgs };
}
