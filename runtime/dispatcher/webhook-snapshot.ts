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
 */
import type { Queryable } from "../db/types.js";
import type { RowFilter } from "./subgraph-filter.js";
import { buildTriggerIndex, type TriggerIndex } from "./trigger-index.js";
import type { ChainWebhookTriggers } from "./trigger-match.js";
import type { Trigger } from "./triggers.js";

export interface SubgraphWebhook {
  id: string;
  subgraph: string;
  table: string;
  filter: RowFilter;
  startHeight: number;
}

export interface WebhookSnapshot {
  /** Chain webhooks (active or paused: a paused webhook keeps its rows for later), by id. */
  chain: ChainWebhookTriggers[];
  /** Subgraph webhooks, by id. */
  subgraph: SubgraphWebhook[];
  /** control.chain_tip.finalized_height when read. */
  finalizedHeight: number | null;
  /** control.webhook_progress.swept_confirmed_height when read. */
  sweptConfirmedHeight: number | null;
}

const SNAPSHOT_SQL = `SELECT t.finalized_height AS finalized, p.swept_confirmed_height AS swept,
  (SELECT COALESCE(json_agg(json_build_object('id', w.id, 'triggers', w.triggers, 'start_height', w.start_height)
                             ORDER BY w.id), '[]')
     FROM control.webhooks w WHERE w.kind = 'chain') AS chain,
  (SELECT COALESCE(json_agg(json_build_object('id', w.id, 'subgraph_name', w.subgraph_name, 'table_name', w.table_name,
                                              'filter', w.filter, 'start_height', w.start_height) ORDER BY w.id), '[]')
     FROM control.webhooks w WHERE w.kind = 'subgraph') AS subgraph
  FROM control.chain_tip t, control.webhook_progress p`;

interface SnapshotRow {
  finalized: number | null;
  swept: number | null;
  chain: { id: string; triggers: Trigger[] | null; start_height: number }[];
  subgraph: {
    id: string;
    subgraph_name: string;
    table_name: string;
    filter: RowFilter | null;
    start_height: number;
  }[];
}

/** Pure: the snapshot of one query row. */
function toSnapshot(row: SnapshotRow | undefined): WebhookSnapshot {
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    chain: (row?.chain ?? []).map((w) => ({
      id: w.id,
      triggers: w.triggers ?? [],
      startHeight: Number(w.start_height),
    })),
    subgraph: (row?.subgraph ?? []).map((w) => ({
      id: w.id,
      subgraph: w.subgraph_name,
      table: w.table_name,
      filter: w.filter ?? {},
      startHeight: Number(w.start_height),
    })),
    finalizedHeight: num(row?.finalized),
    sweptConfirmedHeight: num(row?.swept),
  };
}

// The snapshot per block transaction (the ingestor passes the same Queryable to every hook).
const snapshots = new WeakMap<Queryable, Promise<WebhookSnapshot>>();

/**
 * The snapshot of transaction `q`: read on first use, then shared by every block's writers. The
 * object is the transaction's own: a writer that moves the sweep progress updates it.
 */
export function webhookSnapshot(q: Queryable): Promise<WebhookSnapshot> {
  const known = snapshots.get(q);
  if (known !== undefined) return known;
  const snapshot = q.query<SnapshotRow>(SNAPSHOT_SQL).then((r) => toSnapshot(r.rows[0]));
  snapshots.set(q, snapshot);
  snapshot.catch(() => {
    if (snapshots.get(q) === snapshot) snapshots.delete(q); // a failed read is not remembered
  });
  return snapshot;
}

const chainIndexes = new WeakMap<WebhookSnapshot, TriggerIndex>();
const subgraphIndexes = new WeakMap<WebhookSnapshot, Map<string, SubgraphWebhook[]>>();

/** The trigger index of the snapshot's chain webhooks, built once per snapshot. */
export function chainTriggerIndex(snapshot: WebhookSnapshot): TriggerIndex {
  let index = chainIndexes.get(snapshot);
  if (!index) {
    index = buildTriggerIndex(snapshot.chain);
    chainIndexes.set(snapshot, index);
  }
  return index;
}

/** The snapshot's subgraph webhooks of one table (snapshot order), by lookup. */
export function subgraphWebhooksOf(snapshot: WebhookSnapshot, subgraph: string, table: string): SubgraphWebhook[] {
  let index = subgraphIndexes.get(snapshot);
  if (!index) {
    index = new Map();
    for (const w of snapshot.subgraph) {
      const key = `${w.subgraph}\0${w.table}`;
      const list = index.get(key);
      if (list) list.push(w);
      else index.set(key, [w]);
    }
    subgraphIndexes.set(snapshot, index);
  }
  return index.get(`${subgraph}\0${table}`) ?? [];
}
