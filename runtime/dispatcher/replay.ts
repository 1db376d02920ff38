/**
 * Replay of history over an existing webhook (SPEC.md "Write and management routes", replay
 * rules): `{ fromBlock, toBlock }` → `{ replayId, enqueuedCount, scannedCount }`.
 * - historical only (toBlock at most the indexed tip), at most 100,000 blocks;
 * - idempotent: each replayed event is enqueued at most once per webhook (dedupe kind `replay`),
 *   and the same range returns the same replayId;
 * - never moves the live cursor: replays only add outbox rows flagged `is_replay`;
 * - `sbtc_withdrawal_swept_confirmed` is forward-only and never replayed.
 * Chain webhooks re-run their triggers over stored canonical blocks (chunked reads); subgraph
 * webhooks resend the table's current rows written in the range (`<subgraph>.<table>.replay`).
 * `scannedCount` counts what was examined: events and transactions (chain), rows (subgraph).
 */
import { randomBytes } from "node:crypto";
import type { Db, Queryable } from "../db/types.js";
import { badRequest, ServiceError } from "../internal/errors.js";
import { readCanonicalRange } from "../subgraphs/block-reader.js";
import { createTraitResolver } from "../subgraphs/trait-resolver.js";
import type { SubgraphModule } from "../subgraphs/types.js";
import { applyType, buildApplyData } from "./chain-payload.js";
import { insertOutboxRows, notifyWorkers, type OutboxInsert } from "./outbox-store.js";
import { rowMatches } from "./subgraph-filter.js";
import { renderRow } from "../subgraphs/op-runs.js";
import { rowSql } from "../subgraphs/table-sql.js";
import { buildRowReplayData, replayType } from "./subgraph-payload.js";
import { matchBlock, readPlan, traitCandidates } from "./trigger-match.js";
import type { WebhookRow } from "./webhook-store.js";

/** SPEC.md Limits: "replay range: 100,000 blocks". */
export const MAX_REPLAY_BLOCKS = 100_000;
const BLOCKS_PER_CHUNK = 500;
const ROWS_PER_CHUNK = 1000;

export interface ReplayRange {
  fromBlock: number;
  toBlock: number;
}

export interface ReplayResult {
  replayId: string;
  enqueuedCount: number;
  scannedCount: number;
}

/** Validates a replay body against the tip (pure). */
export function parseReplayRange(body: unknown, tipHeight: number | null): ReplayRange {
  const b = (body ?? {}) as Record<string, unknown>;
  for (const field of ["fromBlock", "toBlock"] as const) {
    const v = b[field];
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) {
      throw badRequest("VALIDATION_ERROR", `${field} must be a non-negative integer block height`, { field });
    }
  }
  const unknown = Object.keys(b).filter((k) => k !== "fromBlock" && k !== "toBlock");
  if (unknown.length)
    throw badRequest(
      "VALIDATION_ERROR",
      `unknown field ${JSON.stringify(unknown[0])}; a replay takes fromBlock and toBlock`,
      { field: unknown[0] },
    );
  const fromBlock = b.fromBlock as number;
  const toBlock = b.toBlock as number;
  if (fromBlock > toBlock)
    throw badRequest("VALIDATION_ERROR", "fromBlock must not be above toBlock", { field: "fromBlock" });
  if (toBlock - fromBlock + 1 > MAX_REPLAY_BLOCKS) {
    throw badRequest(
      "REPLAY_RANGE_TOO_LARGE",
      `a replay covers at most ${MAX_REPLAY_BLOCKS} blocks; got ${toBlock - fromBlock + 1}`,
      {
        field: "toBlock",
        maxBlocks: MAX_REPLAY_BLOCKS,
      },
    );
  }
  if (tipHeight === null || toBlock > tipHeight) {
    throw badRequest(
      "VALIDATION_ERROR",
      `replay is historical only: toBlock must not exceed the indexed tip (${tipHeight ?? "none yet"})`,
      {
        field: "toBlock",
        tipHeight,
      },
    );
  }
  return { fromBlock, toBlock };
}

export interface ReplayDeps {
  db: Db;
  sbtcRegistry: string;
  subgraph?: SubgraphModule;
}

/** Runs a replay to completion (chunked transactions; a repeat after a crash resumes idempotently). */
export async function runReplay(deps: ReplayDeps, webhook: WebhookRow, range: ReplayRange): Promise<ReplayResult> {
  const replayId = await recordReplay(deps.db, webhook.id, range);
  const counts =
    webhook.kind === "chain"
      ? await replayChain(deps, webhook, range, replayId)
      : await replaySubgraph(deps, webhook, range, replayId);
  await deps.db.query(
    "UPDATE control.webhook_replays SET enqueued_count = enqueued_count + $2, scanned_count = $3 WHERE id = $1",
    [replayId, counts.enqueued, counts.scanned],
  );
  return { replayId, enqueuedCount: counts.enqueued, scannedCount: counts.scanned };
}

async function recordReplay(db: Db, webhookId: string, range: ReplayRange): Promise<string> {
  const id = `rpl_${randomBytes(10).toString("hex")}`;
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO control.webhook_replays (id, webhook_id, from_block, to_block) VALUES ($1, $2, $3, $4)
     ON CONFLICT (webhook_id, from_block, to_block) DO UPDATE SET from_block = EXCLUDED.from_block
     RETURNING id`,
    [id, webhookId, range.fromBlock, range.toBlock],
  );
  return rows[0].id;
}

async function replayChain(deps: ReplayDeps, webhook: WebhookRow, range: ReplayRange, replayId: string) {
  const triggers = (webhook.triggers ?? []).filter((t) => t.type !== "sbtc_withdrawal_swept_confirmed");
  const plan = readPlan(triggers);
  const traits = createTraitResolver();
  const hooks = [{ id: webhook.id, triggers, startHeight: -1 }];
  let enqueued = 0;
  let scanned = 0;
  if (!triggers.length) return { enqueued, scanned };
  for (let lo = range.fromBlock; lo <= range.toBlock; lo += BLOCKS_PER_CHUNK) {
    const hi = Math.min(range.toBlock, lo + BLOCKS_PER_CHUNK - 1);
    enqueued += await deps.db.transaction(async (q) => {
      const blocks = await readCanonicalRange(q, lo, hi, plan.eventTypes, plan.txLevel);
      const rows: OutboxInsert[] = [];
      for (const block of blocks) {
        scanned += block.events.length + block.txs.length;
        await traits.prefetch(q, traitCandidates(hooks, block));
        for (const m of matchBlock(hooks, block, { sbtcRegistry: deps.sbtcRegistry, implementsTrait: traits.check })) {
          const data = buildApplyData({
            trigger: m.trigger,
            tx: m.tx,
            event: m.event,
            blockHash: block.blockHash,
            blockHeight: block.height,
            isReplay: true,
          });
          rows.push({
            webhookId: webhook.id,
            eventType: applyType(m.trigger),
            kind: "replay",
            txId: m.txId,
            eventIndex: m.eventIndex,
            blockHash: block.indexBlockHash,
            blockHeight: block.height,
            data: { ...data },
            replayId,
          });
        }
      }
      return insertAndNotify(q, rows);
    });
  }
  return { enqueued, scanned };
}

async function replaySubgraph(deps: ReplayDeps, webhook: WebhookRow, range: ReplayRange, replayId: string) {
  const module = deps.subgraph;
  const tableName = webhook.tableName ?? "";
  if (!module?.tables[tableName]) {
    throw new ServiceError(
      409,
      "SUBGRAPH_NOT_AVAILABLE",
      `subgraph table ${webhook.subgraphName}.${tableName} is not loaded on this instance`,
    );
  }
  const table = `"${module.schema.replaceAll('"', '""')}"."${tableName.replaceAll('"', '""')}"`;
  const filter = webhook.filter ?? {};
  let enqueued = 0;
  let scanned = 0;
  let after = "-1";
  for (;;) {
    const { rows } = await deps.db.query<Record<string, unknown> & { _id: string; index_block_hash: string | null }>(
      `SELECT ${rowSql(module.tables[tableName], "t")}, b.index_block_hash FROM ${table} t
         LEFT JOIN chain.blocks b ON b.canonical AND b.block_height = t._block_height
        WHERE t._block_height BETWEEN $1 AND $2 AND t._id > $3
        ORDER BY t._id LIMIT ${ROWS_PER_CHUNK}`,
      [range.fromBlock, range.toBlock, after],
    );
    if (!rows.length) break;
    after = String(rows[rows.length - 1]._id);
    scanned += rows.length;
    const inserts: OutboxInsert[] = [];
    for (const r of rows) {
      // Rendered as live row changes are (op-runs.ts renderRow), so a replayed row equals the live one.
      const { index_block_hash: blockHash, ...raw } = r;
      const row = renderRow(module.tables[tableName], raw);
      if (!rowMatches(filter, row)) continue;
      const data = buildRowReplayData(module.name, tableName, row, blockHash);
      inserts.push({
        webhookId: webhook.id,
        eventType: replayType(module.name, tableName),
        kind: "replay",
        txId: String(row._tx_id ?? ""),
        eventIndex: -1,
        blockHash: blockHash ?? "",
        seq: String(row._id),
        blockHeight: Number(row._block_height),
        data,
        replayId,
      });
    }
    enqueued += await deps.db.transaction((q) => insertAndNotify(q, inserts));
  }
  return { enqueued, scanned };
}

async function insertAndNotify(q: Queryable, rows: OutboxInsert[]): Promise<number> {
  const n = await insertOutboxRows(q, rows);
  if (n) await notifyWorkers(q);
  return n;
}
