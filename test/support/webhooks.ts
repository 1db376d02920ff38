/**
 * Helpers for the webhook suites: a thin client of the management API (`/api/webhooks`), outbox
 * polling, and a receiver-side fold that applies chain deliveries in arrival order (applies add,
 * rollbacks remove) the way a consumer would.
 */
import type { Db } from "../../runtime/db/types.js";
import type { Receiver } from "./receiver.js";
import { waitFor } from "./service.js";

export interface ApiAnswer<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

export function webhookClient(apiUrl: string, options: { token?: string; prefix?: string } = {}) {
  const prefix = options.prefix ?? "/api/webhooks";
  async function call<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<ApiAnswer<T>> {
    const headers: Record<string, string> = {};
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(`${apiUrl}${prefix}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : null) as T };
  }
  return {
    call,
    create: (body: Record<string, unknown>) => call("POST", "", body),
    list: () => call("GET", ""),
    get: (idOrName: string) => call("GET", `/${encodeURIComponent(idOrName)}`),
    update: (idOrName: string, body: Record<string, unknown>) =>
      call("PATCH", `/${encodeURIComponent(idOrName)}`, body),
    remove: (idOrName: string) => call("DELETE", `/${encodeURIComponent(idOrName)}`),
    pause: (idOrName: string) => call("POST", `/${encodeURIComponent(idOrName)}/pause`),
    resume: (idOrName: string) => call("POST", `/${encodeURIComponent(idOrName)}/resume`),
    rotate: (idOrName: string, body?: Record<string, unknown>) =>
      call("POST", `/${encodeURIComponent(idOrName)}/rotate-secret`, body),
    test: (idOrName: string, body?: Record<string, unknown>) =>
      call("POST", `/${encodeURIComponent(idOrName)}/test`, body),
    deliveries: (idOrName: string, query = "") => call("GET", `/${encodeURIComponent(idOrName)}/deliveries${query}`),
    deadLetters: (idOrName: string, query = "") => call("GET", `/${encodeURIComponent(idOrName)}/dead-letters${query}`),
    requeue: (idOrName: string, deliveryId: string) =>
      call("POST", `/${encodeURIComponent(idOrName)}/dead-letters/${deliveryId}/requeue`),
    replay: (idOrName: string, body: unknown) => call("POST", `/${encodeURIComponent(idOrName)}/replay`, body),
  };
}

/** Resolves once every recorded batch is expanded and no outbox row of the webhook (or any) is pending. */
export async function waitForOutboxDrained(db: Db, webhookId?: string, timeoutMs = 60_000): Promise<void> {
  await waitFor(() => outboxDrained(db, webhookId), { timeoutMs });
}

/** Resolves once every batch the block transactions recorded is expanded into outbox rows. */
export async function waitForExpanded(db: Db, timeoutMs = 60_000): Promise<void> {
  await waitFor(
    async () => {
      const { rows } = await db.query<{ n: string }>("SELECT count(*) AS n FROM control.webhook_batches");
      return Number(rows[0].n) === 0;
    },
    { timeoutMs },
  );
}

/**
 * No batch waits for expansion, no share is held back by WEBHOOK_MAX_PENDING and no outbox row of
 * the webhook (or any) is pending.
 */
export async function outboxDrained(db: Db, webhookId?: string): Promise<boolean> {
  const { rows } = await db.query<{ n: string }>(
    `SELECT (SELECT count(*) FROM control.webhook_batches)
          + (SELECT count(*) FROM control.webhook_held WHERE $1::text IS NULL OR webhook_id = $1)
          + (SELECT count(*) FROM control.webhook_outbox WHERE status = 'pending' AND ($1::text IS NULL OR webhook_id = $1))
            AS n`,
    [webhookId ?? null],
  );
  return Number(rows[0].n) === 0;
}

export async function outboxCount(db: Db, where = "true", params: unknown[] = []): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM control.webhook_outbox WHERE ${where}`,
    params,
  );
  return Number(rows[0].n);
}

interface Applied {
  key: string;
  txId: string;
  eventIndex: number;
  type: string;
  blockHeight: number;
}

/**
 * Folds a receiver's successful standard-webhooks chain deliveries in arrival order, deduplicated
 * by `webhook-id`: an apply adds `<block_hash>:<tx_id>:<event_index>`; a rollback removes, for each
 * orphaned entry, the latest earlier apply of that tx and event — or, with `rule: "fork-point"`,
 * every apply at or above its `fork_point_height` (what SPEC.md tells a receiver to do with a
 * `truncated` rollback). Returns the surviving keys and the rollbacks seen.
 */
export function foldChainDeliveries(
  receiver: Receiver,
  { rule = "orphaned" }: { rule?: "orphaned" | "fork-point" } = {},
): {
  applied: Set<string>;
  rollbacks: Record<string, unknown>[];
} {
  const seen = new Set<string>();
  const applied: Applied[] = [];
  const rollbacks: Record<string, unknown>[] = [];
  for (const r of receiver.requests) {
    if (r.status === undefined || r.status < 200 || r.status >= 300) continue;
    const id = String(r.headers["webhook-id"]);
    if (seen.has(id)) continue;
    seen.add(id);
    const body = JSON.parse(r.body) as { type: string; data: Record<string, unknown> };
    if (body.type === "chain.reorg.rollback") {
      rollbacks.push(body.data);
      if (rule === "fork-point") {
        const fork = body.data.fork_point_height as number;
        for (let i = applied.length - 1; i >= 0; i--) if (applied[i].blockHeight >= fork) applied.splice(i, 1);
        continue;
      }
      for (const o of body.data.orphaned as { tx_id: string; event: { event_index: number; type: string } }[]) {
        for (let i = applied.length - 1; i >= 0; i--) {
          const a = applied[i];
          if (a.txId === o.tx_id && a.eventIndex === o.event.event_index && a.type === o.event.type) {
            applied.splice(i, 1);
            break;
          }
        }
      }
    } else if (body.type.endsWith(".apply") && body.data.action === "apply") {
      const event = body.data.event as { event_index: number; type: string };
      applied.push({
        key: `${body.data.block_hash}:${body.data.tx_id}:${event.event_index}`,
        txId: String(body.data.tx_id),
        eventIndex: event.event_index,
        type: event.type,
        blockHeight: Number(body.data.block_height),
      });
    }
  }
  return { applied: new Set(applied.map((a) => a.key)), rollbacks };
}
