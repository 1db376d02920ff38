/**
 * The journal table, control.journal (DESIGN.md §2 step 1): the observer's requests on
 * PostgreSQL, stored before they are acknowledged and processed in id order (a crash leaves
 * pending rows that the next start processes); imported and file-journaled requests, keyed by
 * source_key so each is applied once; malformed requests of every path, with the reason. The
 * ingestor writes it inside block transactions.
 */
import type { Queryable } from "../db/types.js";

export interface JournalEntry {
  id: string;
  path: string;
  body: string;
}

/** Stores a request; returns its id, or null when `sourceKey` was already journaled. */
export async function insertJournal(
  q: Queryable,
  entry: { path: string; body: string; bodyBytes: number; sourceKey?: string; state?: "pending" | "done" },
): Promise<string | null> {
  const state = entry.state ?? "pending";
  const { rows } = await q.query<{ id: string }>(
    `INSERT INTO control.journal (path, body, body_bytes, source_key, state, processed_at)
     VALUES ($1, $2, $3, $4, $5, CASE WHEN $5 = 'done' THEN now() END)
     ON CONFLICT (source_key) WHERE source_key IS NOT NULL DO NOTHING RETURNING id`,
    [entry.path, entry.body, entry.bodyBytes, entry.sourceKey ?? null, state],
  );
  return rows[0]?.id ?? null;
}

/**
 * Import: journal several requests in one statement as already done, with an empty body (the
 * import file is the durable copy; the key points at it). Returns the keys newly journaled: a key
 * already present (imported before) is not.
 */
export async function insertImportedJournal(
  q: Queryable,
  entries: readonly { path: string; bodyBytes: number; sourceKey: string }[],
): Promise<Set<string>> {
  if (entries.length === 0) return new Set();
  const { rows } = await q.query<{ source_key: string }>(
    `INSERT INTO control.journal (path, body, body_bytes, source_key, state, processed_at)
     SELECT path, '', body_bytes, source_key, 'done', now()
       FROM unnest($1::text[], $2::int[], $3::text[]) WITH ORDINALITY AS e(path, body_bytes, source_key, n)
      ORDER BY n
     ON CONFLICT (source_key) WHERE source_key IS NOT NULL DO NOTHING RETURNING source_key`,
    [entries.map((e) => e.path), entries.map((e) => e.bodyBytes), entries.map((e) => e.sourceKey)],
  );
  return new Set(rows.map((r) => r.source_key));
}

export async function markJournalDone(q: Queryable, id: string): Promise<void> {
  await q.query("UPDATE control.journal SET state = 'done', processed_at = now() WHERE id = $1", [id]);
}

/** Records why a request could not be used; `body` replaces a stored placeholder (imports). */
export async function markJournalMalformed(q: Queryable, id: string, reason: string, body?: string): Promise<void> {
  await q.query(
    `UPDATE control.journal SET state = 'malformed', error = $2, processed_at = now(),
       body = COALESCE($3, body) WHERE id = $1`,
    [id, reason.slice(0, 4000), body ?? null],
  );
}

export async function readPendingJournal(q: Queryable, limit: number): Promise<JournalEntry[]> {
  const { rows } = await q.query<JournalEntry>(
    "SELECT id, path, body FROM control.journal WHERE state = 'pending' ORDER BY id LIMIT $1",
    [limit],
  );
  return rows;
}
