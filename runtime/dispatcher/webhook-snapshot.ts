/**
 * What the outbox writers need to know about webhooks, read in ONE query per block transaction and
 * shared by the chain-webhook and subgraph-webhook writers of every block in it: the chain
 * webhooks' triggers, the subgraph webhooks' filters, and the swept-confirmation progress.
 *
 * Once per transaction is as fresh as once per block: the block transaction holds the chain-tip
 * row lock from its first block to its commit, and creating or deleting a webhook takes that lock
 * first (webhooks/routes.ts), so the lists cannot change under it. `finalizedHeight` is the value at
 * the transaction's start: a sweep that became final during the transaction is confirmed by the
 * next one. A trigger or filter edit applies from the next transaction.
 *
 * The lists themselves are kept between transactions with the token they were read under
 * (control.webhook_progress.webhooks_token, changed by a trigger on every change that matters to
 * matching): the query then returns only the progress row, and the trigger index built for the
 * lists is reused, so a block's cost does not grow with the number of webhooks.
 */
import type { Queryable } from "../db/types.js";
import type { RowFilter } from "./subgraph-filter.js";
import { buildTriggerIndex, type TriggerIndex } from "./trigger-index.js";
import type { ChainWebhookTriggers } from "./trigger-events.js";
import type { Trigger } from "./triggers.js";

export interface SubgraphWebhook {
  id: string;
  subgraph: string;
  table: string;
  filter: RowFilter;
  startHeight: number;
}

export interface WebhookSnapshot {
  /** Chain webhooks (active or paused: a paused webhook keeps its rows for later), by id. Shared: never modify. */
  chain: readonly ChainWebhookTriggers[];
  /** Subgraph webhooks, by id. Shared: never modify. */
  subgraph: readonly SubgraphWebhook[];
  /** control.chain_tip.finalized_height when read. */
  finalizedHeight: number | null;
  /** control.webhook_progress.swept_confirmed_height when read. */
  sweptConfirmedHeight: number | null;
}

// The lists are aggregated only when the caller's copy is stale (its token differs).
const SNAPSHOT_SQL = `SELECT t.finalized_height AS finalized, p.swept_confirmed_height AS swept, p.webhooks_token AS token,
  CASE WHEN p.webhooks_token IS DISTINCT FROM $1 THEN
  (SELECT COALESCE(json_agg(json_build_object('id', w.id, 'triggers', w.triggers, 'start_height', w.start_height)
                             ORDER BY w.id), '[]')
     FROM control.webhooks w WHERE w.kind = 'chain') END AS chain,
  CASE WHEN p.webhooks_token IS DISTINCT FROM $1 THEN
  (SELECT COALESCE(json_agg(json_build_object('id', w.id, 'subgraph_name', w.subgraph_name, 'table_name', w.table_name,
                                              'filter', w.filter, 'start_height', w.start_height) ORDER BY w.id), '[]')
     FROM control.webhooks w WHERE w.kind = 'subgraph') END AS subgraph
  FROM control.chain_tip t, control.webhook_progress p`;

interface SnapshotRow {
  finalized: number | null;
  swept: number | null;
  token: string;
  chain: { id: string; triggers: Trigger[] | null; start_height: number }[] | null;
  subgraph:
    | {
        id: string;
        subgraph_name: string;
        table_name: string;
        filter: RowFilter | null;
        start_height: number;
      }[]
    | null;
}

/** The webhook lists as last read, and the token they were read under (unique across databases). */
let lists: { token: string; chain: readonly ChainWebhookTriggers[]; subgraph: readonly SubgraphWebhook[] } | null =
  null;

/** Pure: the snapshot of one query row (lists from `known` when the row left them out). */
function toSnapshot(
  row: SnapshotRow,
  known: { chain: readonly ChainWebhookTriggers[]; subgraph: readonly SubgraphWebhook[] } | null,
): WebhookSnapshot {
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  const chain =
    row.chain === null && known
      ? known.chain
      : (row.chain ?? []).map((w) => ({
          id: w.id,
          triggers: w.triggers ?? [],
          startHeight: Number(w.start_height),
        }));
  const subgraph =
    row.subgraph === null && known
      ? known.subgraph
      : (row.subgraph ?? []).map((w) => ({
          id: w.id,
          subgraph: w.subgraph_name,
          table: w.table_name,
          filter: w.filter ?? {},
          startHeight: Number(w.start_height),
        }));
  return { chain, subgraph, finalizedHeight: num(row.finalized), sweptConfirmedHeight: num(row.swept) };
}

// The snapshot per block transaction (the ingestor passes the same Queryable to every hook).
const snapshots = new WeakMap<Queryable, Promise<WebhookSnapshot>>();

/**
 * The snapshot of transaction `q`: read on first use, then shared by every block's writers. The
 * object is the transaction's own: a writer that moves the sweep progress updates it. The webhook
 * lists (and their trigger index) are kept between transactions while the token is unchanged.
 */
export function webhookSnapshot(q: Queryable): Promise<WebhookSnapshot> {
  const known = snapshots.get(q);
  if (known !== undefined) return known;
  const cached = lists;
  const snapshot = q.query<SnapshotRow>(SNAPSHOT_SQL, [cached?.token ?? null]).then((r) => {
    const row = r.rows[0];
    const reuse = cached !== null && row.chain === null && row.subgraph === null;
    const s = toSnapshot(row, reuse ? cached : null);
    if (!reuse) lists = { token: row.token, chain: s.chain, subgraph: s.subgraph };
    return s;
  });
  snapshots.set(q, snapshot);
  snapshot.catch(() => {
    if (snapshots.get(q) === snapshot) snapshots.delete(q); // a failed read is not remembered
  });
  return snapshot;
}

// Keyed by the lists, which snapshots share while the token is unchanged.
const chainIndexes = new WeakMap<readonly ChainWebhookTriggers[], TriggerIndex>();
const subgraphIndexes = new WeakMap<readonly SubgraphWebhook[], Map<string, SubgraphWebhook[]>>();

/** The trigger index of the snapshot's chain webhooks, built once per snapshot. */
export function chainTriggerIndex(snapshot: WebhookSnapshot): TriggerIndex {
  let index = chainIndexes.get(snapshot.chain);
  if (!index) {
    index = buildTriggerIndex(snapshot.chain);
    chainIndexes.set(snapshot.chain, index);
  }
  return index;
}

/** The snapshot's subgraph webhooks of one table (snapshot order), by lookup. */
export function subgraphWebhooksOf(snapshot: WebhookSnapshot, subgraph: string, table: string): SubgraphWebhook[] {
  let index = subgraphIndexes.get(snapshot.subgraph);
  if (!index) {
    index = new Map();
    for (const w of snapshot.subgraph) {
      const key = `${w.subgraph}\0${w.table}`;
      const list = index.get(key);
      if (list) list.push(w);
      else index.set(key, [w]);
    }
    subgraphIndexes.set(snapshot.subgraph, index);
  }
  return index.get(`${subgraph}\0${table}`) ?? [];
}
