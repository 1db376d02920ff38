/**
 * control.webhooks SQL and the webhook record the API returns. Secrets stay
 * sealed here; only `liveSecrets` opens them (for signing) and no record ever carries one.
 */
import { randomBytes } from "node:crypto";
import type { Queryable } from "../db/types.js";
import type { Circuit, CircuitState } from "./circuit.js";
import type { Format } from "./formats.js";
import type { SecretBox } from "./secret-box.js";
import type { RowFilter } from "./subgraph-filter.js";
import type { Trigger } from "./triggers.js";

export type WebhookKind = "chain" | "subgraph";
export type WebhookStatus = "active" | "paused";

/** Per-webhook delivery limits (defaults and bounds in limits.ts). */
export interface DeliveryLimits {
  timeoutMs: number;
  maxAttempts: number;
  concurrency: number;
}

export interface WebhookRow extends DeliveryLimits {
  id: string;
  name: string;
  kind: WebhookKind;
  url: string;
  format: Format;
  status: WebhookStatus;
  triggers: Trigger[] | null;
  subgraphName: string | null;
  tableName: string | null;
  filter: RowFilter | null;
  startHeight: number;
  /** Strict order: one delivery at a time, each after the previous one finished (retries included). */
  ordered: boolean;
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretExpiresAt: Date | null;
  circuit: { state: CircuitState; failures: number; openedAt: Date | null };
  createdAt: Date;
  updatedAt: Date;
}

/** `wh_` + 20 base-36 characters. */
export function newWebhookId(): string {
  return `wh_${BigInt(`0x${randomBytes(13).toString("hex")}`)
    .toString(36)
    .padStart(20, "0")
    .slice(-20)}`;
}

const COLUMNS = `id, name, kind, url, format, status, triggers, subgraph_name, table_name, filter, start_height, timeout_ms,
  max_attempts, concurrency, ordered, secret_sealed, previous_secret_sealed, previous_secret_expires_at, circuit_state,
  circuit_failures, circuit_opened_at, created_at, updated_at`;

type Raw = Record<string, unknown>;

function fromRaw(r: Raw): WebhookRow {
  const date = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string));
  return {
    id: String(r.id),
    name: String(r.name),
    kind: r.kind as WebhookKind,
    url: String(r.url),
    format: r.format as Format,
    status: r.status as WebhookStatus,
    triggers: (r.triggers as Trigger[] | null) ?? null,
    subgraphName: (r.subgraph_name as string | null) ?? null,
    tableName: (r.table_name as string | null) ?? null,
    filter: (r.filter as RowFilter | null) ?? null,
    startHeight: Number(r.start_height),
    timeoutMs: Number(r.timeout_ms),
    maxAttempts: Number(r.max_attempts),
    concurrency: Number(r.concurrency),
    ordered: r.ordered === true,
    secretSealed: String(r.secret_sealed),
    previousSecretSealed: (r.previous_secret_sealed as string | null) ?? null,
    previousSecretExpiresAt: date(r.previous_secret_expires_at),
    circuit: {
      state: r.circuit_state as CircuitState,
      failures: Number(r.circuit_failures),
      openedAt: date(r.circuit_opened_at),
    },
    createdAt: date(r.created_at) as Date,
    updatedAt: date(r.updated_at) as Date,
  };
}

export interface NewWebhook extends DeliveryLimits {
  id: string;
  name: string;
  kind: WebhookKind;
  url: string;
  format: Format;
  triggers: Trigger[] | null;
  subgraphName: string | null;
  tableName: string | null;
  filter: RowFilter | null;
  startHeight: number;
  /** Default false. */
  ordered?: boolean;
  secretSealed: string;
}

/** Inserts a webhook; returns null when the name is taken. */
export async function insertWebhook(q: Queryable, w: NewWebhook): Promise<WebhookRow | null> {
  const { rows } = await q.query<Raw>(
    `INSERT INTO control.webhooks (id, name, kind, url, format, triggers, subgraph_name, table_name, filter, start_height,
       timeout_ms, max_attempts, concurrency, secret_sealed, ordered)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
     ON CONFLICT (name) DO NOTHING
     RETURNING ${COLUMNS}`,
    [
      w.id,
      w.name,
      w.kind,
      w.url,
      w.format,
      w.triggers ? JSON.stringify(w.triggers) : null,
      w.subgraphName,
      w.tableName,
      w.filter ? JSON.stringify(w.filter) : null,
      w.startHeight,
      w.timeoutMs,
      w.maxAttempts,
      w.concurrency,
      w.secretSealed,
      w.ordered ?? false,
    ],
  );
  return rows[0] ? fromRaw(rows[0]) : null;
}

/** By id (`wh_…`) first, then by name. */
export async function findWebhook(q: Queryable, idOrName: string): Promise<WebhookRow | undefined> {
  const { rows } = await q.query<Raw>(
    `SELECT ${COLUMNS} FROM control.webhooks WHERE id = $1 OR name = $1 ORDER BY (id = $1) DESC LIMIT 1`,
    [idOrName],
  );
  return rows[0] ? fromRaw(rows[0]) : undefined;
}

export async function listWebhooks(q: Queryable, options: { kind?: WebhookKind } = {}): Promise<WebhookRow[]> {
  const { rows } = await q.query<Raw>(
    `SELECT ${COLUMNS} FROM control.webhooks WHERE ($1::text IS NULL OR kind = $1) ORDER BY created_at, id`,
    [options.kind ?? null],
  );
  return rows.map(fromRaw);
}

/** The webhooks of these ids that exist (a missing id was deleted). */
export async function listWebhooksById(q: Queryable, ids: readonly string[]): Promise<WebhookRow[]> {
  const { rows } = await q.query<Raw>(`SELECT ${COLUMNS} FROM control.webhooks WHERE id = ANY($1::text[])`, [ids]);
  return rows.map(fromRaw);
}

/** Columns an update may set (API names → SQL columns). */
export interface WebhookPatch {
  name?: string;
  url?: string;
  format?: Format;
  triggers?: Trigger[];
  filter?: RowFilter | null;
  timeoutMs?: number;
  maxAttempts?: number;
  concurrency?: number;
  ordered?: boolean;
  status?: WebhookStatus;
  secretSealed?: string;
  previousSecretSealed?: string | null;
  previousSecretExpiresAt?: Date | null;
}

const PATCH_COLUMNS: Record<keyof WebhookPatch, string> = {
  name: "name",
  url: "url",
  format: "format",
  triggers: "triggers",
  filter: "filter",
  timeoutMs: "timeout_ms",
  maxAttempts: "max_attempts",
  concurrency: "concurrency",
  ordered: "ordered",
  status: "status",
  secretSealed: "secret_sealed",
  previousSecretSealed: "previous_secret_sealed",
  previousSecretExpiresAt: "previous_secret_expires_at",
};

/** Applies a patch; returns the updated row, undefined when gone, or "name_taken". */
export async function updateWebhook(
  q: Queryable,
  id: string,
  patch: WebhookPatch,
): Promise<WebhookRow | undefined | "name_taken"> {
  const sets: string[] = ["updated_at = now()"];
  const params: unknown[] = [id];
  for (const [key, value] of Object.entries(patch) as [keyof WebhookPatch, unknown][]) {
    if (value === undefined) continue;
    params.push(key === "triggers" || key === "filter" ? (value === null ? null : JSON.stringify(value)) : value);
    sets.push(`${PATCH_COLUMNS[key]} = $${params.length}`);
  }
  if (patch.name !== undefined) {
    const { rows } = await q.query("SELECT 1 FROM control.webhooks WHERE name = $1 AND id <> $2", [patch.name, id]);
    if (rows.length) return "name_taken";
  }
  const { rows } = await q.query<Raw>(
    `UPDATE control.webhooks SET ${sets.join(", ")} WHERE id = $1 RETURNING ${COLUMNS}`,
    params,
  );
  return rows[0] ? fromRaw(rows[0]) : undefined;
}

/** How many webhooks the instance has. */
export async function countWebhooks(q: Queryable): Promise<number> {
  const { rows } = await q.query<{ n: string }>("SELECT count(*) AS n FROM control.webhooks");
  return Number(rows[0].n);
}

export async function deleteWebhook(q: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await q.query("DELETE FROM control.webhooks WHERE id = $1", [id]);
  return rowCount > 0;
}

/** Persists a breaker transition so the webhook record shows it (and other workers see it). */
export async function saveCircuit(q: Queryable, id: string, c: Circuit): Promise<void> {
  await q.query(
    "UPDATE control.webhooks SET circuit_state = $2, circuit_failures = $3, circuit_opened_at = $4 WHERE id = $1",
    [id, c.state, c.failures, c.openedAt === null ? null : new Date(c.openedAt)],
  );
}

/** The secrets that sign now: the current one, plus the previous one during its grace period. */
export function liveSecrets(w: WebhookRow, box: SecretBox, nowMs: number): string[] {
  const out = [box.open(w.secretSealed, w.id)];
  if (w.previousSecretSealed && w.previousSecretExpiresAt && w.previousSecretExpiresAt.getTime() > nowMs) {
    out.push(box.open(w.previousSecretSealed, w.id));
  }
  return out;
}

/** The webhook as the API shows it (never a secret). */
export function toWebhookRecord(
  w: WebhookRow,
  options: { cooldownMs: number; nowMs: number },
): Record<string, unknown> {
  const record: Record<string, unknown> = {
    id: w.id,
    name: w.name,
    kind: w.kind,
    url: w.url,
    format: w.format,
    status: w.status,
  };
  if (w.kind === "chain") {
    record.triggers = w.triggers ?? [];
    record.startHeight = w.startHeight;
  } else {
    record.subgraphName = w.subgraphName;
    record.tableName = w.tableName;
    record.filter = w.filter ?? {};
  }
  const openedAt = w.circuit.openedAt;
  Object.assign(record, {
    timeoutMs: w.timeoutMs,
    maxAttempts: w.maxAttempts,
    concurrency: w.concurrency,
    ordered: w.ordered,
    circuit: {
      state: w.circuit.state,
      consecutiveFailures: w.circuit.failures,
      openedAt: openedAt?.toISOString() ?? null,
      retryAt:
        w.circuit.state === "open" && openedAt ? new Date(openedAt.getTime() + options.cooldownMs).toISOString() : null,
    },
    previousSecretExpiresAt:
      w.previousSecretExpiresAt && w.previousSecretExpiresAt.getTime() > options.nowMs
        ? w.previousSecretExpiresAt.toISOString()
        : null,
    createdAt: w.createdAt.toISOString(),
    updatedAt: w.updatedAt.toISOString(),
  });
  return record;
}
