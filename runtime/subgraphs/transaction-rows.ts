/**
 * The rows one ingest transaction touches through upserts, increments, inserts and updates, held in
 * memory and written once, at its end (or before anything reads the tables: another statement on the same
 * table, a reorg's revert).
 *
 * Why: a hot row (a DEX pool, a busy contract's balance) is updated by many blocks of one
 * transaction. Writing it once per block leaves a dead version per write that PostgreSQL cannot
 * prune while the transaction is open, and every later statement on the row walks them. Here each
 * operation reads the row through this cache (one query per block for the keys not yet cached),
 * folds the operation in memory (row-fold.ts) and records the undo entry of the row's first change
 * in each journaled block; `flush` then writes each touched row once and the undo entries in bulk.
 *
 * Row changes come out of the fold, in the same order and with the same rows the statements would
 * have returned. A value the fold cannot vouch for throws RowRefusedError before anything is
 * written: the engine redoes the transaction with one statement per run (block-apply.ts), as it does
 * when the database refuses a row at `flush`.
 */
import { schemaTag } from "../db/prepared-statements.js";
import type { Queryable } from "../db/types.js";
import { type DraftChange, draft, renderRow, type Run, type SeqOp } from "./op-runs.js";
import {
  foldOp,
  foldUpdate,
  type FreshRow,
  keyHasNull,
  keyOf,
  matchText,
  paramOf,
  type RenderedRow,
  RowRefusedError,
} from "./row-fold.js";
import {
  INSERT_UNDO_ROWS_SQL,
  insertRowsSql,
  qualified,
  RESERVE_IDS_SQL,
  selectByKeysSql,
  selectMatchingSql,
  type JournalTarget,
  type StatementCache,
  type TableTarget,
  type TaggedTarget,
  updateRowsSql,
} from "./table-sql.js";
import type { TableStats } from "./table-stats.js";
import type { IncrementOp, TableMeta, UpdateOp } from "./types.js";

/** An upsert, increment, insert or update run (op-runs.ts): what this cache applies. */
export type MemoryRun = Extract<Run, { kind: "upsert" | "increment" | "insert" | "update" }>;

interface UndoEntry {
  hash: string;
  height: number;
  rowId: number;
  op: "insert" | "update";
  /** The row before the block's first change (rows are copied on change, never mutated). */
  pre: RenderedRow | null;
}

interface TableRows {
  target: TaggedTarget;
  /** Current state of every row read or written in this transaction, by `_id`. */
  rows: Map<number, RenderedRow>;
  /** Key columns (joined) → rendered key → `_id`, over every row in `rows`. */
  indexes: Map<string, { key: readonly string[]; ids: Map<string, number> }>;
  /** Key columns (joined) → rendered keys no stored row held when read (nothing else writes the table). */
  absent: Map<string, Set<string>>;
  /** An update's key signature → match texts whose stored rows are all cached (read ahead). */
  matchRead: Map<string, Set<string>>;
  /** An update's key columns (joined) → match text (row-fold.ts matchText) → the rows it matches. */
  matches: Map<string, { columns: readonly string[]; ids: Map<string, Set<number>> }>;
  /** Rows not in the table yet (inserted at flush). */
  created: Set<number>;
  /** Stored rows changed since read (overwritten at flush). */
  changed: Set<number>;
  undo: UndoEntry[];
  /** Row → the block whose undo entry it has (only the first change of a block is journaled). */
  journaledIn: Map<number, string>;
}

export interface TransactionRows {
  /**
   * Reads, in one statement, the stored rows of keys that later runs will look up (`values`: each
   * one's key values); what no row holds is remembered as absent, so those runs read nothing.
   * Returns how many rows those runs would create: the distinct keys no row holds, and every value
   * with a null in its key.
   */
  readAhead(
    q: Queryable,
    target: TaggedTarget,
    key: readonly string[],
    values: readonly Record<string, unknown>[],
  ): Promise<number>;
  /**
   * Reserves, in one statement, `_id`s for the rows the transaction's planned runs will create
   * (`count` per table, an estimate): runs then take them without a round trip each, which on an
   * import transaction waited behind every chain row insert sent before it. Unused ids are gaps.
   */
  reserveAhead(q: Queryable, wants: readonly { target: TaggedTarget; count: number }[]): Promise<void>;
  /** The same for update keys (`keys`: each update's key values; `nulls`: columns matched IS NULL). */
  readAheadMatches(
    q: Queryable,
    target: TaggedTarget,
    keyColumns: readonly string[],
    nulls: readonly boolean[],
    keys: readonly Record<string, unknown>[],
  ): Promise<void>;
  /** Applies an upsert/increment/insert/update run of one table in memory; returns its changes when `collect`. */
  apply(
    q: Queryable,
    target: TaggedTarget,
    run: MemoryRun,
    journal: JournalTarget | null,
    collect: boolean,
  ): Promise<DraftChange[]>;
  /**
   * Writes one table's pending rows and undo entries before a statement touches it (its unused
   * reserved ids are dropped: rows that statement inserts take later ones, and ids keep the order
   * rows were created in).
   */
  flushTable(q: Queryable, target: TableTarget): Promise<void>;
  /** Writes every pending row and undo entry. */
  flush(q: Queryable): Promise<void>;
  /** Drops one table's cached rows (flushed first): a statement changed them behind the cache. */
  forgetTable(target: TableTarget): void;
  /** Drops every cached row and reserved id (flushed first): a revert or rebuild changed the tables. */
  forget(): void;
  /** Whether rows or undo entries wait to be written. */
  pending(): boolean;
  /**
   * Drops the waiting undo entries of blocks at or below `height` (blocks that became final in
   * this transaction: the caller prunes the journal to that height as it commits); returns how many.
   */
  dropUndoThrough(height: number): number;
  /** A statement inserted `rows` rows into the table (counted for its statistics at flush). */
  inserted(target: TableTarget, rows: number): void;
}

const tableKey = (target: TableTarget) => `${target.schema}.${target.meta.name}`;

export function createTransactionRows(cache: StatementCache, stats?: TableStats): TransactionRows {
  const tables = new Map<string, TableRows>();
  const spareIds = new Map<string, number[]>();
  // How many times each table reserved ids in this transaction (each asks for more).
  const reserveRounds = new Map<string, number>();
  // Rows added per table in this transaction, for the planner's statistics (table-stats.ts).
  const growth = new Map<string, { target: TableTarget; rows: number }>();
  const grow = (target: TableTarget, rows: number) => {
    const entry = growth.get(tableKey(target)) ?? { target, rows: 0 };
    entry.rows += rows;
    growth.set(tableKey(target), entry);
  };
  let now: string | null = null;

  const sql = (target: TaggedTarget, name: string, build: () => string): string => {
    const key = `${target.schemaHash}|${tableKey(target)}|rows:${name}`;
    let text = cache.get(key);
    if (text === undefined) {
      text = schemaTag(target.schemaHash) + build();
      cache.set(key, text);
    }
    return text;
  };

  function tableOf(target: TaggedTarget): TableRows {
    let t = tables.get(tableKey(target));
    if (t === undefined) {
      t = {
        target,
        rows: new Map(),
        indexes: new Map(),
        matches: new Map(),
        absent: new Map(),
        matchRead: new Map(),
        created: new Set(),
        changed: new Set(),
        undo: [],
        journaledIn: new Map(),
      };
      tables.set(tableKey(target), t);
    }
    return t;
  }

  function indexOf(t: TableRows, key: readonly string[]): Map<string, number> {
    const signature = key.join(",");
    let index = t.indexes.get(signature);
    if (index === undefined) {
      index = { key, ids: new Map() };
      for (const [id, row] of t.rows) if (!keyHasNull(key, row)) index.ids.set(keyOf(t.target.meta, key, row), id);
      t.indexes.set(signature, index);
    }
    return index.ids;
  }

  /**
   * Puts a row's new state in place, keeping every key index current. `known`: the row's key text
   * under one signature, already computed (its columns did not change).
   */
  function store(t: TableRows, id: number, row: RenderedRow, known?: { signature: string; text: string }): void {
    const old = t.rows.get(id);
    for (const [signature, { key, ids }] of t.indexes) {
      if (signature === known?.signature) {
        ids.set(known.text, id);
        continue;
      }
      if (old !== undefined && key.every((c) => old[c] === row[c])) continue;
      if (old !== undefined && !keyHasNull(key, old)) ids.delete(keyOf(t.target.meta, key, old));
      if (!keyHasNull(key, row)) ids.set(keyOf(t.target.meta, key, row), id);
    }
    for (const { columns, ids } of t.matches.values()) {
      if (old !== undefined && columns.every((c) => old[c] === row[c])) continue;
      if (old !== undefined) ids.get(matchText(t.target.meta, columns, old))?.delete(id);
      addMatch(ids, matchText(t.target.meta, columns, row), id);
    }
    t.rows.set(id, row);
  }

  /** Stored rows just read: cached unless the transaction holds them already (its state is newer). */
  function cacheStored(t: TableRows, rows: readonly Record<string, unknown>[]): void {
    for (const raw of rows) {
      const row = renderRow(t.target.meta, raw);
      const id = Number(row._id);
      if (!t.rows.has(id)) store(t, id, row);
    }
  }

  function matchIndexOf(t: TableRows, columns: readonly string[]): Map<string, Set<number>> {
    const signature = columns.join(",");
    let index = t.matches.get(signature);
    if (index === undefined) {
      index = { columns, ids: new Map() };
      for (const [id, row] of t.rows) addMatch(index.ids, matchText(t.target.meta, columns, row), id);
      t.matches.set(signature, index);
    }
    return index.ids;
  }

  /**
   * Reads the stored rows of the keys not cached yet (rows already cached keep their state; keys
   * read before and found absent are not read again); returns how many keys no row holds.
   * `texts`: each operation's key text (null: a null key).
   */
  async function readMissing(
    q: Queryable,
    t: TableRows,
    key: readonly string[],
    run: MemoryRun,
    texts: readonly (string | null)[],
  ): Promise<number> {
    const values = new Map<string, Record<string, unknown>>();
    run.ops.forEach((planned, i) => {
      const k = texts[i];
      if (k !== null) values.set(k, keyValues(planned));
    });
    await readKeys(q, t, key, values);
    const ids = indexOf(t, key);
    let absent = 0;
    for (const k of values.keys()) if (!ids.has(k)) absent++;
    return absent;
  }

  /** Reads the rows of those `values` (rendered key → key values) neither cached nor known absent. */
  async function readKeys(
    q: Queryable,
    t: TableRows,
    key: readonly string[],
    values: ReadonlyMap<string, Record<string, unknown>>,
  ): Promise<void> {
    const ids = indexOf(t, key);
    const signature = key.join(",");
    const absent = setIn(t.absent, signature);
    const missing = [...values].filter(([k]) => !ids.has(k) && !absent.has(k));
    if (missing.length === 0) return;
    const params = key.map((c) => missing.map(([, v]) => paramOf(t.target.meta, c, v[c])));
    const { rows } = await q.query<Record<string, unknown>>(
      sql(t.target, `select:${signature}`, () => selectByKeysSql(t.target, key)),
      params,
    );
    cacheStored(t, rows);
    for (const [k] of missing) if (!ids.has(k)) absent.add(k);
  }

  /** Fresh `_id`s for `count` new rows (and the transaction's `now()`), in one query. */
  async function reserve(q: Queryable, t: TableRows, count: number): Promise<void> {
    const spare = spareIds.get(tableKey(t.target)) ?? [];
    if (spare.length >= count && now !== null) return;
    // More than needed, twice as many each time a table runs out within the transaction (up to
    // 1,024): a long import transaction then asks a few times per table, not once per block,
    // while a one-block transaction asks once. Unused ids are gaps, as a conflicting
    // INSERT … ON CONFLICT leaves them too.
    const rounds = reserveRounds.get(tableKey(t.target)) ?? 0;
    reserveRounds.set(tableKey(t.target), rounds + 1);
    await reserveIds(
      q,
      new Map([[qualified(t.target), { t, count: count - spare.length + Math.min(1024, 32 << rounds) }]]),
    );
  }

  /**
   * Reserves `count` fresh `_id`s for each table (keyed by its qualified name) in one statement,
   * appended in order to its spare ids: a later reservation's ids are larger than every earlier one.
   */
  async function reserveIds(q: Queryable, wants: ReadonlyMap<string, { t: TableRows; count: number }>): Promise<void> {
    const { rows } = await q.query<{ name: string; id: string; now: string }>(RESERVE_IDS_SQL, [
      [...wants.keys()],
      [...wants.values()].map((w) => w.count),
    ]);
    const fresh = new Map<string, number[]>();
    for (const r of rows) {
      let ids = fresh.get(r.name);
      if (ids === undefined) {
        ids = [];
        fresh.set(r.name, ids);
      }
      ids.push(Number(r.id));
      now ??= r.now;
    }
    for (const [name, ids] of fresh) {
      const key = tableKey((wants.get(name) as { t: TableRows }).t.target);
      const spare = spareIds.get(key) ?? [];
      spare.push(...ids.sort((a, b) => a - b));
      spareIds.set(key, spare);
    }
  }

  function takeFresh(t: TableRows): FreshRow {
    const id = spareIds.get(tableKey(t.target))?.shift();
    if (id === undefined || now === null) throw new Error(`no reserved _id left for ${tableKey(t.target)}`);
    return { id, createdAt: now };
  }

  async function flushTable(q: Queryable, t: TableRows): Promise<void> {
    const meta = t.target.meta;
    if (t.created.size > 0) {
      grow(t.target, t.created.size);
      const rows = [...t.created].sort((a, b) => a - b).map((id) => t.rows.get(id) as RenderedRow);
      await q.query(
        sql(t.target, "insert", () => insertRowsSql(t.target)),
        columnArrays(meta, rows),
      );
    }
    if (t.changed.size > 0) {
      const rows = [...t.changed].map((id) => t.rows.get(id) as RenderedRow);
      await q.query(
        sql(t.target, "update", () => updateRowsSql(t.target)),
        columnArrays(meta, rows),
      );
    }
    if (t.undo.length > 0) {
      const u = t.undo;
      await q.query(INSERT_UNDO_ROWS_SQL, [
        t.target.subgraph,
        meta.name,
        u.map((e) => e.hash),
        u.map((e) => e.height),
        u.map((e) => String(e.rowId)),
        u.map((e) => e.op),
        u.map((e) => (e.pre === null ? null : JSON.stringify(e.pre))),
      ]);
    }
    t.created.clear();
    t.changed.clear();
    t.undo = [];
  }

  /** Records a row's undo entry: only its first change in each journaled block. */
  function journalChange(t: TableRows, rowId: number, journal: JournalTarget | null, before: RenderedRow | undefined) {
    if (journal === null || t.journaledIn.get(rowId) === journal.indexBlockHash) return;
    t.journaledIn.set(rowId, journal.indexBlockHash);
    t.undo.push({
      hash: journal.indexBlockHash,
      height: journal.blockHeight,
      rowId,
      op: before === undefined ? "insert" : "update",
      pre: before ?? null,
    });
  }

  /**
   * New rows, each with a fresh `_id`. A row whose unique key a row of this transaction already
   * holds (made or read earlier, or earlier in this run) would be refused by the database:
   * RowRefusedError, and the statement path lets the database decide. Stored rows are not read
   * for it (a new row's key is almost always new, and a read per block was a round trip): the
   * database refuses such a duplicate when the rows are written, and the transaction is redone
   * block by block, as for any refusal there.
   */
  async function insertRows(
    q: Queryable,
    t: TableRows,
    run: Extract<Run, { kind: "insert" }>,
    journal: JournalTarget | null,
    collect: boolean,
  ): Promise<DraftChange[]> {
    const meta = t.target.meta;
    for (const key of meta.uniqueKeys) {
      const texts = run.ops.map((o) => {
        const values = keyValues(o);
        return keyHasNull(key, values) ? null : keyOf(meta, key, values);
      });
      const taken = indexOf(t, key);
      const inRun = new Set<string>();
      for (const k of texts) {
        if (k === null) continue;
        if (taken.has(k) || inRun.has(k)) throw new RowRefusedError(`${meta.name}: (${key.join(", ")}) already taken`);
        inRun.add(k);
      }
    }
    await reserve(q, t, run.ops.length);
    const out: DraftChange[] = [];
    for (const planned of run.ops) {
      const row = foldOp(meta, undefined, planned, takeFresh(t));
      const rowId = Number(row._id);
      journalChange(t, rowId, journal, undefined);
      store(t, rowId, row);
      t.created.add(rowId);
      if (collect) out.push(draft(t.target.subgraph, meta, planned, "created", row));
    }
    return out;
  }

  /** Caches the stored rows those update keys (match text → key values) match, unless read already. */
  async function readMatching(
    q: Queryable,
    t: TableRows,
    keyColumns: readonly string[],
    nulls: readonly boolean[],
    keys: ReadonlyMap<string, Record<string, unknown>>,
  ): Promise<void> {
    const meta = t.target.meta;
    const signature = `match:${keyColumns.join(",")}|${nulls.join(",")}`;
    const read = setIn(t.matchRead, signature);
    const unread = [...keys].filter(([text]) => !read.has(text));
    if (unread.length === 0) return;
    const valued = keyColumns.filter((_c, i) => !nulls[i]);
    const { rows } = await q.query<Record<string, unknown>>(
      sql(t.target, signature, () => selectMatchingSql(t.target, keyColumns, nulls)),
      valued.map((c) => unread.map(([, key]) => paramOf(meta, c, key[c]))),
    );
    cacheStored(t, rows);
    for (const [text] of unread) read.add(text);
  }

  /**
   * Sets columns on every row the key matches: the stored ones (read, unless cached) and those
   * made or changed in this transaction. A set column in a unique key could collide with a row
   * only the database sees: RowRefusedError, and the statement path decides.
   */
  async function updateRows(
    q: Queryable,
    t: TableRows,
    run: Extract<Run, { kind: "update" }>,
    journal: JournalTarget | null,
    collect: boolean,
  ): Promise<DraftChange[]> {
    const meta = t.target.meta;
    const planned = run.ops[0];
    const op = planned.op as UpdateOp;
    if (run.setColumns.some((c) => meta.uniqueKeys.some((key) => key.includes(c))))
      throw new RowRefusedError(`${meta.name}: an update of a unique key column is left to the database`);
    const wanted = matchText(meta, run.keyColumns, op.key);
    await readMatching(q, t, run.keyColumns, run.nulls, new Map([[wanted, op.key]]));
    const ids = [...(matchIndexOf(t, run.keyColumns).get(wanted) ?? [])].sort((a, b) => a - b);
    const out: DraftChange[] = [];
    for (const id of ids) {
      const before = t.rows.get(id) as RenderedRow;
      const next = foldUpdate(meta, before, planned);
      journalChange(t, id, journal, before);
      store(t, id, next);
      if (!t.created.has(id)) t.changed.add(id);
      if (collect) out.push(draft(t.target.subgraph, meta, planned, "updated", next, before));
    }
    return out;
  }

  return {
    async readAheadMatches(q, target, keyColumns, nulls, keys) {
      const t = tableOf(target);
      const byText = new Map<string, Record<string, unknown>>();
      for (const key of keys) byText.set(matchText(target.meta, keyColumns, key), key);
      await readMatching(q, t, keyColumns, nulls, byText);
    },

    async readAhead(q, target, key, values) {
      const t = tableOf(target);
      const byText = new Map<string, Record<string, unknown>>();
      let withNullKey = 0;
      for (const v of values) {
        if (keyHasNull(key, v)) withNullKey++;
        else byText.set(keyOf(target.meta, key, v), v);
      }
      await readKeys(q, t, key, byText);
      const ids = indexOf(t, key);
      let absent = 0;
      for (const k of byText.keys()) if (!ids.has(k)) absent++;
      return absent + withNullKey;
    },

    async reserveAhead(q, wants) {
      // Summed per table (a table may be planned under several keys and by inserts).
      const counts = new Map<string, { t: TableRows; count: number }>();
      for (const w of wants) {
        if (w.count <= 0) continue;
        const name = qualified(w.target);
        const entry = counts.get(name) ?? { t: tableOf(w.target), count: 0 };
        entry.count += w.count;
        counts.set(name, entry);
      }
      if (counts.size > 0) await reserveIds(q, counts);
    },

    async apply(q, target, run, journal, collect) {
      const t = tableOf(target);
      if (run.kind === "insert") return insertRows(q, t, run, journal, collect);
      if (run.kind === "update") return updateRows(q, t, run, journal, collect);
      const meta = target.meta;
      const key = run.key;
      const signature = key.join(",");
      const texts = run.ops.map((o) => {
        const values = keyValues(o);
        return keyHasNull(key, values) ? null : keyOf(meta, key, values);
      });
      const absent = await readMissing(q, t, key, run, texts);
      const withNullKey = texts.filter((k) => k === null).length;
      if (absent + withNullKey > 0) await reserve(q, t, absent + withNullKey);
      const ids = indexOf(t, key);
      const out: DraftChange[] = [];
      for (const [i, planned] of run.ops.entries()) {
        const text = texts[i];
        const id = text === null ? undefined : ids.get(text);
        const before = id === undefined ? undefined : t.rows.get(id);
        const next = foldOp(meta, before, planned, before === undefined ? takeFresh(t) : undefined);
        const rowId = Number(next._id);
        journalChange(t, rowId, journal, before);
        store(t, rowId, next, text === null ? undefined : { signature, text });
        if (before === undefined) t.created.add(rowId);
        else if (!t.created.has(rowId)) t.changed.add(rowId);
        if (collect)
          out.push(
            before === undefined
              ? draft(target.subgraph, meta, planned, "created", next)
              : draft(target.subgraph, meta, planned, "updated", next, before),
          );
      }
      return out;
    },

    async flushTable(q, target) {
      const t = tables.get(tableKey(target));
      if (t !== undefined) await flushTable(q, t);
      // Dropped ids are wasted: the table starts again from a small reservation.
      spareIds.delete(tableKey(target));
      reserveRounds.delete(tableKey(target));
    },

    async flush(q) {
      for (const t of tables.values()) await flushTable(q, t);
      if (stats !== undefined) for (const { target, rows } of growth.values()) await stats.grew(q, target, rows);
      growth.clear();
    },

    inserted(target, rows) {
      grow(target, rows);
    },

    forgetTable(target) {
      tables.delete(tableKey(target));
    },

    forget() {
      tables.clear();
      spareIds.clear();
      reserveRounds.clear();
    },

    pending() {
      for (const t of tables.values()) if (t.created.size + t.changed.size + t.undo.length > 0) return true;
      return false;
    },

    dropUndoThrough(height) {
      let dropped = 0;
      for (const t of tables.values()) {
        const kept = t.undo.filter((e) => e.height > height);
        dropped += t.undo.length - kept.length;
        t.undo = kept;
      }
      return dropped;
    },
  };
}

/** The set under `key`, made empty when there is none. */
function setIn<T>(sets: Map<string, Set<T>>, key: string): Set<T> {
  let set = sets.get(key);
  if (set === undefined) {
    set = new Set();
    sets.set(key, set);
  }
  return set;
}

function addMatch(ids: Map<string, Set<number>>, text: string, id: number): void {
  setIn(ids, text).add(id);
}

function keyValues(planned: SeqOp): Record<string, unknown> {
  const op = planned.op;
  if (op.kind === "upsert" || op.kind === "insert") return op.values;
  return (op as IncrementOp).key;
}

/** Rows as one parameter array per physical column (declared order), values as parameters. */
function columnArrays(meta: TableMeta, rows: readonly RenderedRow[]): unknown[] {
  return Object.keys(meta.columns).map((c) => rows.map((r) => paramOf(meta, c, r[c])));
}
