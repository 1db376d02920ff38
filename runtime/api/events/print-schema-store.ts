/**
 * Keeps print schemas (events/print-schema.ts) up to date per contract, for the print-schema route
 * (SPEC.md "Index and Streams routes"). A contract's summary is built once from its indexed
 * history and then extended incrementally: each request reads only the prints after the last
 * one summarised (keyset over the `(contract_id, block_height, event_index)` index). A reorg
 * whose fork point (its lowest orphaned height) is at or below what was summarised throws the
 * summary away and rebuilds it.
 * Concurrent requests for one contract share one read. At most `maxContracts` summaries are
 * kept (least recently used evicted); unknown contracts are never cached.
 */
import { eventColumnEquals } from "../../chain/event-columns-sql.js";
import type { Queryable } from "../../db/types.js";
import { weakEtag } from "../http/cache-headers.js";
import type { Position } from "./cursor.js";
import { addPrint, createPrintSchemaState, type PrintSchemaState, renderPrintSchema } from "./print-schema.js";

export interface RenderedSchema {
  /** JSON text of the response body. */
  json: string;
  etag: string;
}

export interface PrintSchemaStore {
  /** The contract's schema, or null when no canonical deploy or event mentions the contract. */
  get(q: Queryable, contractId: string): Promise<RenderedSchema | null>;
}

interface Entry {
  state: PrintSchemaState;
  position: Position | null;
  reorgCount: number;
  lastReorgId: number;
  rendered: RenderedSchema | null;
}

/** Prints read per query while building. */
const BATCH = 5000;

export const READ_PRINTS_SQL = `SELECT e.block_height, e.event_index, e.topic,
       coalesce(e.payload->>'raw_value', '0x' || encode(e.raw_value, 'hex')) AS raw_value
  FROM chain.events e
 WHERE e.canonical AND e.committed AND ${eventColumnEquals("e", "contract_id", "$1")}
   AND ${eventColumnEquals("e", "event_type", "'print'")}
   AND (e.block_height, e.event_index) > ($2, $3)
 ORDER BY e.block_height, e.event_index
 LIMIT $4`;

export const CONTRACT_KNOWN_SQL = `SELECT EXISTS (
    SELECT 1 FROM chain.transactions t
     WHERE t.contract_id = $1 AND t.canonical AND t.tx_type IN ('smart_contract', 'versioned_smart_contract'))
  OR EXISTS (
    SELECT 1 FROM chain.events e
     WHERE ${eventColumnEquals("e", "contract_id", "$1")} AND e.canonical AND e.committed) AS known`;

export function createPrintSchemaStore({ maxContracts = 256 }: { maxContracts?: number } = {}): PrintSchemaStore {
  const entries = new Map<string, Entry>();

  async function reorgMarks(q: Queryable): Promise<{ count: number; lastId: number }> {
    const { rows } = await q.query<{ reorg_count: string | number; last_id: string | number }>(
      "SELECT t.reorg_count, (SELECT COALESCE(max(id), 0) FROM chain.reorgs) AS last_id FROM control.chain_tip t",
    );
    return { count: Number(rows[0]?.reorg_count ?? 0), lastId: Number(rows[0]?.last_id ?? 0) };
  }

  async function fresh(q: Queryable, contractId: string): Promise<Entry> {
    const marks = await reorgMarks(q);
    return {
      state: createPrintSchemaState(contractId),
      position: null,
      reorgCount: marks.count,
      lastReorgId: marks.lastId,
      rendered: null,
    };
  }

  /** Drops the summary when a reorg since the last read orphaned a height it covers. */
  async function invalidated(q: Queryable, entry: Entry): Promise<boolean> {
    const { rows } = await q.query<{ reorg_count: string | number }>("SELECT reorg_count FROM control.chain_tip");
    const count = Number(rows[0]?.reorg_count ?? 0);
    if (count === entry.reorgCount) return false;
    const since = await q.query<{ fork: number | null; last_id: string | number | null }>(
      "SELECT min(fork_point_height) AS fork, max(id) AS last_id FROM chain.reorgs WHERE id > $1",
      [entry.lastReorgId],
    );
    const fork = since.rows[0]?.fork;
    entry.reorgCount = count;
    if (since.rows[0]?.last_id !== null && since.rows[0]?.last_id !== undefined)
      entry.lastReorgId = Number(since.rows[0].last_id);
    return fork !== null && fork !== undefined && entry.position !== null && Number(fork) <= entry.position.height;
  }

  async function update(
    q: Queryable,
    contractId: string,
    existing: Entry | undefined,
  ): Promise<{ entry: Entry; rendered: RenderedSchema | null }> {
    let entry = existing && !(await invalidated(q, existing)) ? existing : await fresh(q, contractId);
    let added = 0;
    for (;;) {
      const after = entry.position ?? { height: -1, index: -1 };
      const { rows } = await q.query<{
        block_height: number;
        event_index: number;
        topic: string | null;
        raw_value: string | null;
      }>(READ_PRINTS_SQL, [contractId, after.height, after.index, BATCH]);
      for (const r of rows) {
        addPrint(entry.state, { blockHeight: Number(r.block_height), nodeTopic: r.topic, rawValue: r.raw_value });
        entry.position = { height: Number(r.block_height), index: Number(r.event_index) };
      }
      added += rows.length;
      if (rows.length < BATCH) break;
    }
    if (entry.state.printCount === 0) {
      const { rows } = await q.query<{ known: boolean }>(CONTRACT_KNOWN_SQL, [contractId]);
      if (!rows[0]?.known) {
        entry = { ...entry, rendered: null };
        return { entry, rendered: null };
      }
    }
    if (added > 0 || !entry.rendered) {
      const json = JSON.stringify(renderPrintSchema(entry.state));
      entry.rendered = { json, etag: weakEtag(json) };
    }
    return { entry, rendered: entry.rendered };
  }

  const inflight = new Map<string, Promise<RenderedSchema | null>>();
  return {
    get(q, contractId) {
      const running = inflight.get(contractId);
      if (running) return running;
      const work = update(q, contractId, entries.get(contractId))
        .then(({ entry, rendered }) => {
          entries.delete(contractId); // re-inserted last: Map order is the LRU order
          if (rendered) {
            entries.set(contractId, entry);
            while (entries.size > maxContracts) entries.delete(entries.keys().next().value as string);
          }
          return rendered;
        })
        .finally(() => inflight.delete(contractId));
      inflight.set(contractId, work);
      return work;
    },
  };
}
