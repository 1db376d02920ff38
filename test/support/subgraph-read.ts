/**
 * Support for the subgraph read API suites (not a test file): a seeded PRNG, simulated rows
 * inserted straight into the real generated tables, an independent model of what the routes
 * must return (sorting, filtering, BigInt aggregates — sharing no code with runtime/), HTTP
 * helpers (page walks) and an SSE client over fetch + eventsource-parser.
 */
import { type SseClient, type SseItem, openSse as openBaseSse } from "./sse.js";
import { expect } from "vitest";
import type { Db, Queryable } from "../../runtime/db/types.js";

// ---------------------------------------------------------------- PRNG

/** mulberry32 over a string seed: deterministic, printed by the tests that use it. */
export function prng(seed: string): () => number {
  let h = 1779033703 ^ seed.length;
  for (let i = 0; i < seed.length; i++) {
    h = Math.imul(h ^ seed.charCodeAt(i), 3432918353);
    h = (h << 13) | (h >>> 19);
  }
  let a = h >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pickOne = <T>(rand: () => number, items: readonly T[]): T => items[Math.floor(rand() * items.length)];
export const intBetween = (rand: () => number, lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));

const C32 = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
export function c32(rand: () => number, n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += C32[Math.floor(rand() * C32.length)];
  return s;
}
const hex = (rand: () => number, n: number) => {
  let s = "";
  for (let i = 0; i < n; i++) s += "0123456789abcdef"[Math.floor(rand() * 16)];
  return s;
};

// ---------------------------------------------------------------- simulated rows

/** A row as the API must render it (every column; `_id` filled after insert). */
export type ModelRow = Record<string, string | number | boolean | object | null>;

export interface ModelTable {
  subgraph: string;
  table: string;
  /** schema-qualified, quoted */
  sqlName: string;
  /** Column name → model type used by the independent filters/sorts. */
  types: Record<string, "text" | "num" | "id" | "time" | "bool" | "json">;
  nullable: Set<string>;
  rows: ModelRow[];
}

/** The system columns of a seeded row (`_id` is filled in after the insert); heights lo..hi. */
function systemFields(rand: () => number, lo: number, hi: number, base: number) {
  return {
    _id: 0,
    _block_height: String(intBetween(rand, lo, hi)),
    _tx_id: `0x${hex(rand, 64)}`,
    _created_at: isoMicros(rand, base),
  };
}

function isoMicros(rand: () => number, base: number): string {
  const ms = base + intBetween(rand, 0, 86_400_000 * 30);
  const d = new Date(ms).toISOString(); // ...sss Z
  return `${d.slice(0, 23)}${String(intBetween(rand, 0, 999)).padStart(3, "0")}Z`;
}

function bigAmount(rand: () => number, signed: boolean): string {
  const digits = intBetween(rand, 1, 30);
  let s = String(intBetween(rand, 1, 9));
  for (let i = 1; i < digits; i++) s += String(intBetween(rand, 0, 9));
  return signed && rand() < 0.3 ? `-${s}` : s;
}

const SYSTEM_TYPES = { _id: "id", _block_height: "num", _tx_id: "text", _created_at: "time" } as const;

/** Inserts rows in batches (multi-row VALUES, every value a parameter); fills `_id` from RETURNING. */
async function insertRows(db: Db, t: ModelTable, columns: string[], casts: Record<string, string>): Promise<void> {
  const batch = 100;
  for (let i = 0; i < t.rows.length; i += batch) {
    const chunk = t.rows.slice(i, i + batch);
    const params: unknown[] = [];
    const tuples = chunk.map((row) => {
      const ph = columns.map((c) => {
        params.push(row[c] === null ? null : String(row[c]));
        return `$${params.length}::${casts[c] ?? "text"}`;
      });
      return `(${ph.join(", ")})`;
    });
    const { rows } = await db.query<{ _id: string }>(
      `INSERT INTO ${t.sqlName} (${columns.map((c) => `"${c}"`).join(", ")}) VALUES ${tuples.join(", ")} RETURNING "_id"`,
      params,
    );
    rows.forEach((r, j) => {
      chunk[j]._id = Number(r._id);
    });
  }
}

/** Reorders a row's keys as the table declares them (declared columns, then system columns). */
function ordered(row: ModelRow, keys: string[]): ModelRow {
  return Object.fromEntries(keys.map((k) => [k, row[k] ?? null]));
}

/**
 * Simulated asset-holdings rows: unique (kind, asset, holder); amounts up to 30 digits, signed;
 * ties on holder, asset and height; microsecond timestamps.
 */
export async function seedHoldings(db: Db, seed: string, n: number): Promise<ModelTable> {
  const rand = prng(seed);
  const holders = Array.from({ length: Math.max(4, Math.floor(n / 5)) }, () => `SP${c32(rand, 10)}`);
  const assets = Array.from({ length: 8 }, () => `SP${c32(rand, 10)}.TOKEN-${c32(rand, 3)}::COIN`);
  assets.push("STX");
  const seen = new Set<string>();
  const rows: ModelRow[] = [];
  const base = Date.UTC(2026, 0, 1);
  while (rows.length < n) {
    const asset = pickOne(rand, assets);
    const kind = asset === "STX" ? "stx" : "ft";
    const holder = pickOne(rand, holders);
    if (seen.has(`${kind}|${asset}|${holder}`)) continue;
    seen.add(`${kind}|${asset}|${holder}`);
    rows.push({
      kind,
      amount: bigAmount(rand, true),
      holder,
      asset_identifier: asset,
      ...systemFields(rand, 1, Math.max(2, Math.floor(n / 3)), base),
    });
  }
  const t: ModelTable = {
    subgraph: "asset-holdings",
    table: "holdings",
    sqlName: '"sg_asset_holdings"."holdings"',
    types: { kind: "text", amount: "num", holder: "text", asset_identifier: "text", ...SYSTEM_TYPES },
    nullable: new Set(),
    rows,
  };
  await insertRows(db, t, ["kind", "amount", "holder", "asset_identifier", "_block_height", "_tx_id", "_created_at"], {
    amount: "numeric",
    _block_height: "bigint",
    _created_at: "timestamptz",
  });
  const keys = ["kind", "amount", "holder", "asset_identifier", "_id", "_block_height", "_tx_id", "_created_at"];
  t.rows = rows.map((r) => ordered(r, keys));
  return t;
}

/** Simulated sbtc-flows `flows` rows: several nullable columns (incl. the sortable request_id). */
export async function seedFlows(db: Db, seed: string, n: number): Promise<ModelTable> {
  const rand = prng(seed);
  const topics = ["completed-deposit", "withdrawal-create", "withdrawal-accept", "withdrawal-reject", "key-rotation"];
  const senders = Array.from({ length: 6 }, () => `SN${c32(rand, 10)}`);
  const rows: ModelRow[] = [];
  const base = Date.UTC(2026, 1, 1);
  for (let i = 0; i < n; i++) {
    rows.push({
      topic: pickOne(rand, topics),
      amount: rand() < 0.3 ? null : String(intBetween(rand, 1, 1_000_000)),
      sender: rand() < 0.4 ? null : pickOne(rand, senders),
      request_id: rand() < 0.35 ? null : String(intBetween(rand, 0, Math.floor(n / 4))),
      burn_height: rand() < 0.5 ? null : bigAmount(rand, false),
      bitcoin_txid: rand() < 0.5 ? null : hex(rand, 64),
      ...systemFields(rand, 100, 100 + Math.floor(n / 2), base),
    });
  }
  const t: ModelTable = {
    subgraph: "sbtc-flows",
    table: "flows",
    sqlName: '"sg_sbtc_flows"."flows"',
    types: {
      topic: "text",
      amount: "text",
      sender: "text",
      request_id: "num",
      burn_height: "num",
      bitcoin_txid: "text",
      ...SYSTEM_TYPES,
    },
    nullable: new Set(["amount", "sender", "request_id", "burn_height", "bitcoin_txid"]),
    rows,
  };
  await insertRows(
    db,
    t,
    [
      "topic",
      "amount",
      "sender",
      "request_id",
      "burn_height",
      "bitcoin_txid",
      "_block_height",
      "_tx_id",
      "_created_at",
    ],
    {
      request_id: "numeric",
      burn_height: "numeric",
      _block_height: "bigint",
      _created_at: "timestamptz",
    },
  );
  const keys = [
    "topic",
    "amount",
    "sender",
    "request_id",
    "burn_height",
    "bitcoin_txid",
    "_id",
    "_block_height",
    "_tx_id",
    "_created_at",
  ];
  t.rows = rows.map((r) => ordered(r, keys));
  return t;
}

/** A spec deployed at run time with no searchable column and boolean, jsonb, timestamp and nullable bigint columns. */
export const PLAIN_SPEC = `name: plain-things
version: 1.0.0
released: 2026-01-15
description: Test subgraph without searchable columns.
sources:
  xfer:
    type: stx_transfer
tables:
  items:
    columns:
      note:
        type: text
      flag:
        type: boolean
        attributes: [indexed]
      meta:
        type: jsonb
        attributes: [indexed, nullable]
      happened:
        type: timestamp
        attributes: [indexed]
      big:
        type: bigint
        attributes: [indexed, nullable]
handlers:
  xfer:
    - insert: items
      values:
        note: \${event.sender}
        flag: true
        happened: "2026-01-01T00:00:00Z"
        big: \${event.amount}
`;

/** Rows of PLAIN_SPEC's `items` (deploy the spec first). */
export async function seedPlain(db: Db, seed: string, n: number): Promise<ModelTable> {
  const rand = prng(seed);
  const rows: ModelRow[] = [];
  const base = Date.UTC(2026, 3, 1);
  for (let i = 0; i < n; i++) {
    rows.push({
      note: `note ${c32(rand, 4)} 100%_done`,
      flag: rand() < 0.5,
      meta: rand() < 0.3 ? null : { k: c32(rand, 3), n: intBetween(rand, 0, 9), list: [1, "two"] },
      happened: isoMicros(rand, base),
      big: rand() < 0.3 ? null : bigAmount(rand, true),
      ...systemFields(rand, 1, 40, base),
    });
  }
  const t: ModelTable = {
    subgraph: "plain-things",
    table: "items",
    sqlName: '"sg_plain_things"."items"',
    types: { note: "text", flag: "bool", meta: "json", happened: "time", big: "num", ...SYSTEM_TYPES },
    nullable: new Set(["meta", "big"]),
    rows,
  };
  const asParams: ModelRow[] = rows.map((r) => ({ ...r, meta: r.meta === null ? null : JSON.stringify(r.meta) }));
  const staged: ModelTable = { ...t, rows: asParams };
  await insertRows(db, staged, ["note", "flag", "meta", "happened", "big", "_block_height", "_tx_id", "_created_at"], {
    flag: "boolean",
    meta: "jsonb",
    happened: "timestamptz",
    big: "numeric",
    _block_height: "bigint",
    _created_at: "timestamptz",
  });
  asParams.forEach((r, i) => {
    rows[i]._id = r._id;
  });
  const keys = ["note", "flag", "meta", "happened", "big", "_id", "_block_height", "_tx_id", "_created_at"];
  t.rows = rows.map((r) => ordered(r, keys));
  return t;
}

/** Simulated bns-names rows: nullable, indexed, searchable `owner`; unique fqn. */
export async function seedNames(db: Db, seed: string, n: number): Promise<ModelTable> {
  const rand = prng(seed);
  const namespaces = ["btc", "stx", "app", "id"];
  const owners = Array.from({ length: 12 }, () => `SP${c32(rand, 10)}`);
  const topics = ["new-name", "transfer-name", "burn-name", "renew-name"];
  const rows: ModelRow[] = [];
  const used = new Set<string>();
  const base = Date.UTC(2026, 2, 1);
  while (rows.length < n) {
    const name = c32(rand, intBetween(rand, 3, 6)).toLowerCase();
    const namespace = pickOne(rand, namespaces);
    const fqn = `${name}.${namespace}`;
    if (used.has(fqn)) continue;
    used.add(fqn);
    rows.push({
      fqn,
      name,
      owner: rand() < 0.3 ? null : pickOne(rand, owners),
      topic: pickOne(rand, topics),
      namespace,
      ...systemFields(rand, 1, 80, base),
    });
  }
  const t: ModelTable = {
    subgraph: "bns-names",
    table: "names",
    sqlName: '"sg_bns_names"."names"',
    types: { fqn: "text", name: "text", owner: "text", topic: "text", namespace: "text", ...SYSTEM_TYPES },
    nullable: new Set(["owner"]),
    rows,
  };
  await insertRows(db, t, ["fqn", "name", "owner", "topic", "namespace", "_block_height", "_tx_id", "_created_at"], {
    _block_height: "bigint",
    _created_at: "timestamptz",
  });
  const keys = ["fqn", "name", "owner", "topic", "namespace", "_id", "_block_height", "_tx_id", "_created_at"];
  t.rows = rows.map((r) => ordered(r, keys));
  return t;
}

// ---------------------------------------------------------------- independent model

/** Compares two values of a model type; null never reaches here. */
function compareValues(type: string, a: string | number | boolean, b: string | number | boolean): number {
  if (type === "bool") return Number(String(a) === "true") - Number(String(b) === "true");
  if (type === "num" || type === "id") {
    const x = BigInt(String(a));
    const y = BigInt(String(b));
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (type === "time") {
    const x = String(a);
    const y = String(b);
    return x < y ? -1 : x > y ? 1 : 0; // same-format UTC ISO text sorts as time
  }
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Rows ordered by (sort, _id): NULLs after every value in asc, before every value in desc. */
export function modelSort(t: ModelTable, rows: ModelRow[], sort: string, order: "asc" | "desc"): ModelRow[] {
  const sign = order === "asc" ? 1 : -1;
  return [...rows].sort((a, b) => {
    const va = a[sort];
    const vb = b[sort];
    let c = 0;
    if (va === null && vb !== null) c = 1;
    else if (va !== null && vb === null) c = -1;
    else if (va !== null && vb !== null) c = compareValues(t.types[sort], va as string, vb as string);
    if (c === 0) c = compareValues("id", a._id as number, b._id as number);
    return sign * c;
  });
}

export type Op = "eq" | "neq" | "like" | "gt" | "gte" | "lt" | "lte";

/** Normalises an ISO date-time the way the API must interpret it (UTC without an offset), to micros. */
function timeKey(value: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2}(?::\d{2})?)(?:\.(\d+))?)?(Z)?$/.exec(value);
  if (!m) throw new Error(`test value ${value} is not a simple ISO time`);
  const time = (m[2] ?? "00:00:00").padEnd(8, ":00").slice(0, 8);
  return `${m[1]}T${time}.${(m[3] ?? "").padEnd(6, "0")}Z`;
}

/** The model's answer to one filter. */
export function modelFilter(t: ModelTable, column: string, op: Op, value: string): (r: ModelRow) => boolean {
  const type = t.types[column];
  return (r) => {
    const v = r[column];
    if (op === "like") return v !== null && String(v).toLowerCase().includes(value.toLowerCase());
    if (op === "neq") {
      if (v === null) return true;
      return compareValues(type, v as string, type === "time" ? timeKey(value) : value) !== 0;
    }
    if (v === null) return false;
    const c = compareValues(type, v as string, type === "time" ? timeKey(value) : value);
    switch (op) {
      case "eq":
        return c === 0;
      case "gt":
        return c > 0;
      case "gte":
        return c >= 0;
      case "lt":
        return c < 0;
      case "lte":
        return c <= 0;
    }
  };
}

/** BigInt aggregates of the model: sum/min/max as decimal strings (sum "0", min/max null when empty). */
export function modelAggregate(rows: ModelRow[], column: string) {
  const values = rows
    .map((r) => r[column])
    .filter((v) => v !== null)
    .map((v) => BigInt(String(v)));
  let sum = 0n;
  for (const v of values) sum += v;
  const min = values.length ? values.reduce((a, b) => (b < a ? b : a)).toString() : null;
  const max = values.length ? values.reduce((a, b) => (b > a ? b : a)).toString() : null;
  return { sum: sum.toString(), min, max };
}

export function distinctCount(rows: ModelRow[], column: string): number {
  return new Set(
    rows
      .map((r) => r[column])
      .filter((v) => v !== null)
      .map((v) => (typeof v === "object" ? JSON.stringify(v) : String(v))),
  ).size;
}

// ---------------------------------------------------------------- HTTP

export interface ListPage {
  rows: ModelRow[];
  next_cursor: string | null;
  tip: { block_height: number; subgraph_height: number; blocks_behind: number };
}

export async function getJson<T = Record<string, unknown>>(url: string): Promise<T> {
  const res = await fetch(url);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${text}`);
  return JSON.parse(text) as T;
}

/** Walks a list route page by page; checks the page size and next_cursor rules on the way. */
export async function walk(
  base: string,
  path: string,
  params: Record<string, string>,
  limit: number,
): Promise<ModelRow[]> {
  const rows: ModelRow[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100_000; pages++) {
    const qs = new URLSearchParams({ ...params, _limit: String(limit), ...(cursor ? { cursor } : {}) });
    const page: ListPage = await getJson<ListPage>(`${base}${path}?${qs}`);
    expect(page.rows.length).toBeLessThanOrEqual(limit);
    rows.push(...page.rows);
    if (page.next_cursor === null) return rows;
    expect(page.rows.length).toBe(limit);
    cursor = page.next_cursor;
  }
  throw new Error("walk did not end");
}

// ---------------------------------------------------------------- SSE

export type { SseItem } from "./sse.js";

export interface SubgraphSseClient extends SseClient {
  /** Row frames (default event) parsed, in arrival order. */
  rows(): ModelRow[];
  lastId(): string | undefined;
}

/** The shared SSE client plus row helpers for subgraph streams. */
export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SubgraphSseClient> {
  const client = await openBaseSse(url, headers);
  const { items } = client;
  return {
    ...client,
    rows: () =>
      items
        .filter((i) => i.kind === "event" && i.event === undefined)
        .map((i) => JSON.parse((i as { data: string }).data)),
    lastId: () => {
      const ids = items.filter((i) => i.kind === "event" && i.id !== undefined);
      const last = ids[ids.length - 1];
      return last?.kind === "event" ? last.id : undefined;
    },
  };
}

/**
 * Applies the stream's client contract (runtime/api/subgraphs/stream-session.ts) to frames:
 * rows accumulate by `_id`; a reorg frame drops every held row with `_id > removed_after_id`.
 */
export function applyRowFrames(items: SseItem[], held: Map<number, ModelRow> = new Map()): Map<number, ModelRow> {
  for (const item of items) {
    if (item.kind !== "event") continue;
    const data = JSON.parse(item.data);
    if (item.event === "reorg") {
      for (const id of [...held.keys()]) if (id > data.removed_after_id) held.delete(id);
    } else {
      if (held.has(data._id)) throw new Error(`row ${data._id} delivered twice`);
      held.set(data._id, data);
    }
  }
  return held;
}

// ---------------------------------------------------------------- hand-made blocks

/**
 * Commits a "block" by hand: runs `work` (row writes), advances control.chain_tip and notifies
 * the chain channel in the same transaction — what ingest does at the end of every block, so
 * the chain hub wakes the streams. For query and stream tests that insert rows directly.
 */
export async function commitBlock(db: Db, work: (q: Queryable) => Promise<void> = async () => {}): Promise<number> {
  return db.transaction(async (q) => {
    await work(q);
    const { rows } = await q.query<{ block_height: number }>(
      "UPDATE control.chain_tip SET block_height = COALESCE(block_height, 0) + 1 RETURNING block_height",
    );
    await q.query("SELECT pg_notify('sluice_chain', '{\"type\":\"block\"}')");
    return Number(rows[0].block_height);
  });
}

/**
 * A hand-made reorg: deletes the rows `removeAboveId` of `sqlName` (what the engine's revert does
 * to rows created at or above the fork point, the lowest orphaned height), records it in
 * chain.reorgs, advances the tip and the reorg count, and notifies — as ingest does.
 */
export async function commitReorg(
  db: Db,
  sqlName: string,
  removeAboveId: number,
  forkPointHeight: number,
): Promise<void> {
  await db.transaction(async (q) => {
    await q.query(`DELETE FROM ${sqlName} WHERE "_id" > $1`, [removeAboveId]);
    const { rows } = await q.query<{ block_height: number }>("SELECT block_height FROM control.chain_tip");
    const tip = Number(rows[0].block_height ?? 0);
    await q.query(
      `INSERT INTO chain.reorgs (fork_point_height, orphaned_from_height, orphaned_to_height, orphaned_blocks, applied_blocks,
         old_tip_hash, old_tip_height, new_tip_hash, new_tip_height)
       VALUES ($1, $2, $3, '[]'::jsonb, '[]'::jsonb, '0xold', $3, '0xnew', $4)`,
      [forkPointHeight, forkPointHeight, tip, tip + 1],
    );
    await q.query("UPDATE control.chain_tip SET block_height = block_height + 1, reorg_count = reorg_count + 1");
    await q.query("SELECT pg_notify('sluice_chain', '{\"type\":\"reorg\"}')");
  });
}
