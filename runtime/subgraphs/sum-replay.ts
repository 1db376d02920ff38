/**
 * Backfill of settled blocks as sums (DESIGN.md §2 backfill): a subgraph whose handlers are all
 * unconditional increments of event fields (generator/sum-replay.ts decides, and emits them as
 * `SubgraphModule.sumReplay`) is rebuilt over a range of finalized blocks by one statement per
 * table: every increment the handlers would make, read from the stored chain rows, grouped by
 * key and added to the table. It gives the rows the one-operation-at-a-time replay gives:
 *  - the same sums (NUMERIC is exact, and a null delta adds nothing);
 *  - `_block_height` and `_tx_id` of each row's last increment in chain order;
 *  - new rows numbered (`_id`) in the chain order of their first increment.
 * The chain order is the handler contexts' (context.ts): per block, transactions by index, each
 * with its fee first and then its committed events by index; the matured miner rewards last;
 * then sources in spec order and operations in handler order.
 *
 * It writes nothing and answers null when the per-operation replay must judge instead: a null key
 * value (which the unique index would keep as distinct rows), or a value the database refuses.
 * The caller then replays the blocks one operation at a time, which fails the subgraph at the
 * right block exactly as before.
 */
import { sqlIdent } from "../../generator/naming.js";
import type { Queryable } from "../db/types.js";
import { eventTypeOfSource } from "./match-source.js";
import { qualified } from "./table-sql.js";
import type { SubgraphModule, SumReplayOp, SumTerm } from "./types.js";

/** Miner rewards sort after every transaction of their block. */
const AFTER_TXS = 2_147_483_647;

export interface SummedStatement {
  sql: string;
  /** Parameters after $1 (from height) and $2 (to height). */
  params: unknown[];
}

/** The statement that adds `table`'s summed increments over blocks [$1, $2]; pure. */
export function sumReplayStatement(module: SubgraphModule, table: string): SummedStatement {
  const ops = (module.sumReplay ?? []).filter((op) => op.table === table);
  const meta = module.tables[table];
  if (ops.length === 0 || meta === undefined) throw new Error(`${module.name}.${table} has no summed increments`);
  const params: unknown[] = [];
  const param = (value: unknown, type: string) => {
    params.push(value);
    return `$${params.length + 2}::${type}`;
  };
  const sourceRank = new Map(Object.keys(module.sources).map((name, i) => [name, i]));
  const typeOf = (op: SumReplayOp) => eventTypeOfSource(module.sources[op.source].type);
  const types = new Set(ops.map(typeOf));
  const stored = [...types].filter((t) => t !== "tx_fee" && t !== "miner_reward");

  const parts: string[] = [];
  if (stored.length > 0)
    parts.push(`SELECT e.block_height AS h, e.tx_index AS ti, 1 AS part, e.event_index AS ei, e.event_type AS t,
         e.contract_id AS f_contract_id, e.asset_identifier AS f_asset_identifier, e.sender AS f_sender,
         e.recipient AS f_recipient, e.amount AS f_amount
    FROM chain.events e
   WHERE e.canonical AND e.committed AND e.block_height BETWEEN $1 AND $2 AND e.event_type = ANY(${param(stored, "text[]")})`);
  // stx-sources.ts txFeeEvent: every transaction pays, the sponsor for a sponsored one; none for
  // Bitcoin-originated operations; a fee of 0 is no event.
  if (types.has("tx_fee"))
    // Block by block: transactions are keyed by block, not by height (OFFSET 0 keeps the lookup
    // per block whatever the planner's statistics say).
    parts.push(`SELECT b.block_height, t.tx_index, 0, -1, 'tx_fee', NULL, 'STX', t.payer, NULL, t.fee
    FROM chain.blocks b CROSS JOIN LATERAL (
      SELECT tx_index, coalesce(sponsor, sender) AS payer, fee FROM chain.transactions
       WHERE index_block_hash = b.index_block_hash AND NOT burnchain_op AND fee > 0 OFFSET 0) t
   WHERE b.canonical AND b.block_height BETWEEN $1 AND $2 AND t.payer IS NOT NULL`);
  // stx-sources.ts minerRewardEvent: coinbase plus the three fee shares; nothing when that is 0.
  if (types.has("miner_reward"))
    parts.push(`SELECT b.block_height, ${AFTER_TXS}, 2, r.n - 1, 'miner_reward',
         NULL, 'STX', NULL, r.v->>'recipient', r.total
    FROM chain.blocks b
   CROSS JOIN LATERAL (
     SELECT v, n, (v->>'coinbase_amount')::numeric + (v->>'tx_fees_anchored')::numeric
              + (v->>'tx_fees_streamed_confirmed')::numeric + (v->>'tx_fees_streamed_produced')::numeric AS total
       FROM jsonb_array_elements(coalesce(b.matured_miner_rewards, '[]'::jsonb)) WITH ORDINALITY AS x(v, n)) r
   WHERE b.canonical AND b.block_height BETWEEN $1 AND $2 AND r.total <> 0`);

  const keyColumns = Object.keys(ops[0].key);
  const deltaColumns = [...new Set(ops.flatMap((op) => Object.keys(op.deltas)))];
  const term = (t: SumTerm | undefined, type: "text" | "numeric"): string => {
    if (t === undefined) return type === "numeric" ? "0" : "NULL";
    if ("literal" in t) return param(t.literal, type);
    const column = `f_${t.field}`;
    const value = type === "numeric" ? `${column}::numeric` : `${column}::text`;
    return t.negate ? `-(${value})` : value;
  };
  // Each event meets its operations in one join: a row per (event, operation) of its type.
  const opRank = new Map<string, number>();
  const opRows = ops.map((op, n) => {
    const rank = opRank.get(op.source) ?? 0;
    opRank.set(op.source, rank + 1);
    return `(${n}, ${param(typeOf(op), "text")}, ${sourceRank.get(op.source)}, ${rank})`;
  });
  const perOp = (terms: string[]) =>
    terms.every((t) => t === terms[0])
      ? terms[0]
      : `CASE o.n ${terms.map((t, n) => `WHEN ${n} THEN ${t}`).join(" ")} END`;
  const keyValues = keyColumns.map((c, i) => `${perOp(ops.map((op) => term(op.key[c], "text")))} AS k${i}`);
  const deltaValues = deltaColumns.map(
    (c, i) => `coalesce(${perOp(ops.map((op) => term(op.deltas[c], "numeric")))}, 0) AS d${i}`,
  );
  const selectOps = `SELECT ${[...keyValues, ...deltaValues].join(", ")}, ARRAY[ev.h, ev.ti, ev.part, ev.ei, o.src, o.rank] AS pos
    FROM ev JOIN (VALUES ${opRows.join(", ")}) AS o(n, t, src, rank) ON o.t = ev.t`;

  const k = keyColumns.map((_, i) => `k${i}`);
  const d = deltaColumns.map((_, i) => `d${i}`);
  const target = qualified({ subgraph: module.name, schema: module.schema, meta });
  const matches = (row: string) => keyColumns.map((c, i) => `${row}.${sqlIdent(c)} = a.k${i}`).join(" AND ");
  const sql = `WITH ev AS (
  ${parts.join("\n  UNION ALL\n  ")}
), ops AS (
  ${selectOps}
), sums AS (
  SELECT ${k.join(", ")}, ${d.map((x) => `sum(${x}) AS ${x}`).join(", ")}, min(pos) AS first, max(pos) AS last,
         bool_or(${k.map((x) => `${x} IS NULL`).join(" OR ")}) AS null_key
    FROM ops GROUP BY ${k.join(", ")}
), agg AS (
  -- The last increment's transaction: the one at (height, index) of the canonical chain.
  SELECT s.*, s.last[1] AS h, CASE WHEN s.last[2] = ${AFTER_TXS} THEN '' ELSE (
           SELECT coalesce(
             (SELECT tx.tx_id FROM chain.transactions tx
               WHERE tx.index_block_hash = b.index_block_hash AND tx.tx_index = s.last[2]),
             (SELECT e.tx_id FROM chain.events e
               WHERE e.index_block_hash = b.index_block_hash AND e.tx_index = s.last[2] LIMIT 1))
             FROM chain.blocks b WHERE b.canonical AND b.block_height = s.last[1]) END AS tx_id
    FROM sums s
), refused AS (
  SELECT count(*) FILTER (WHERE null_key) AS n FROM agg
), updated AS (
  UPDATE ${target} t SET ${deltaColumns.map((c, i) => `${sqlIdent(c)} = coalesce(t.${sqlIdent(c)}, 0) + a.d${i}`).join(", ")},
         "_block_height" = a.h, "_tx_id" = a.tx_id
    FROM agg a WHERE (SELECT n FROM refused) = 0 AND ${matches("t")}
  RETURNING 1
), inserted AS (
  INSERT INTO ${target} (${[...keyColumns, ...deltaColumns].map(sqlIdent).join(", ")}, "_block_height", "_tx_id")
  SELECT ${[...k, ...d].map((x) => `a.${x}`).join(", ")}, a.h, a.tx_id FROM agg a
   WHERE (SELECT n FROM refused) = 0 AND NOT EXISTS (SELECT 1 FROM ${target} t WHERE ${matches("t")})
   ORDER BY a.first
  RETURNING 1
)
SELECT (SELECT n FROM refused) AS refused, (SELECT count(*) FROM updated) AS updated,
       (SELECT count(*) FROM inserted) AS inserted`;
  return { sql, params };
}

/**
 * Adds the summed increments of canonical blocks [from, to] to every table of `module`, in a
 * savepoint: the number of canonical blocks in the range, or null (nothing written) when the
 * per-operation replay must judge these blocks.
 */
export async function replaySums(
  q: Queryable,
  module: SubgraphModule,
  from: number,
  to: number,
): Promise<number | null> {
  const tables = [...new Set((module.sumReplay ?? []).map((op) => op.table))];
  if (tables.length === 0) return null;
  await q.query("SAVEPOINT sluice_sum_replay");
  try {
    for (const table of tables) {
      const { sql, params } = sumReplayStatement(module, table);
      const { rows } = await q.query<{ refused: string | number }>(sql, [from, to, ...params]);
      if (Number(rows[0].refused) > 0) throw new Error("a key value is null");
    }
    await q.query("RELEASE SAVEPOINT sluice_sum_replay");
  } catch {
    await q.query("ROLLBACK TO SAVEPOINT sluice_sum_replay");
    await q.query("RELEASE SAVEPOINT sluice_sum_replay");
    return null;
  }
  const { rows } = await q.query<{ n: string | number }>(
    "SELECT count(*) AS n FROM chain.blocks WHERE canonical AND block_height BETWEEN $1 AND $2",
    [from, to],
  );
  return Number(rows[0].n);
}
