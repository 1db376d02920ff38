/**
 * The compact form of a block's webhook deliveries (control.webhook_batches, kind `deliveries`),
 * pure. A block transaction records each delivery template once — its payload and dedupe key —
 * with the webhooks it goes to, instead of one outbox row per (template × webhook): a template that
 * 1,000 webhooks match is stored once, its webhooks as runs of positions in the batch's list of
 * webhook ids. Expansion turns a range of those positions into outbox rows, template by template
 * (so each webhook's rows keep the order the templates were recorded in: block order), with
 * delivery ids derived from the batch id, the webhook and the dedupe key.
 */
import { type DedupeKind, derivedDeliveryId, type OutboxInsert } from "./outbox-store.js";

/** One delivery without its webhook: what every webhook it goes to receives. */
export interface DeliveryTemplate {
  eventType: string;
  kind: DedupeKind;
  txId: string;
  eventIndex: number;
  blockHash: string;
  seq?: number;
  blockHeight: number | null;
  data: Record<string, unknown>;
  fence?: boolean;
}

export interface DeliveryBatchBody {
  /** The webhooks named by the batch; positions below index this list. */
  w: string[];
  /** Templates in recording order; `r` holds runs of webhook positions as [start, count, start, count, …]. */
  g: { t: DeliveryTemplate; r: number[] }[];
}

/** Collects templates and their webhooks for one batch. */
export class DeliveryBatchBuilder {
  private readonly positions = new Map<string, number>();
  private readonly webhooks: string[] = [];
  private readonly groups: { t: DeliveryTemplate; r: number[] }[] = [];
  private deliveries = 0;

  /** Records `template` for `webhookIds` (in the order given; duplicates are the caller's error). */
  add(template: DeliveryTemplate, webhookIds: readonly string[]): void {
    if (!webhookIds.length) return;
    const r: number[] = [];
    for (const id of webhookIds) {
      let pos = this.positions.get(id);
      if (pos === undefined) {
        pos = this.webhooks.length;
        this.positions.set(id, pos);
        this.webhooks.push(id);
      }
      const n = r.length;
      if (n && r[n - 2] + r[n - 1] === pos) r[n - 1]++;
      else r.push(pos, 1);
    }
    this.groups.push({ t: template, r });
    this.deliveries += webhookIds.length;
  }

  get deliveryCount(): number {
    return this.deliveries;
  }

  get webhookCount(): number {
    return this.webhooks.length;
  }

  body(): DeliveryBatchBody {
    return { w: this.webhooks, g: this.groups };
  }
}

/** Deliveries per webhook position. */
export function rowsPerWebhook(body: DeliveryBatchBody): Uint32Array {
  const counts = new Uint32Array(body.w.length);
  for (const g of body.g)
    for (let i = 0; i < g.r.length; i += 2) for (let k = 0; k < g.r[i + 1]; k++) counts[g.r[i] + k]++;
  return counts;
}

/**
 * The end of the next chunk starting at webhook position `from`: as many whole webhooks as fit in
 * `maxRows` deliveries (at least one).
 */
export function chunkEnd(counts: Uint32Array, from: number, maxRows: number): number {
  let rows = 0;
  let end = from;
  while (end < counts.length && (end === from || rows + counts[end] <= maxRows)) rows += counts[end++];
  return end;
}

/**
 * The outbox rows of webhook positions [from, to) of batch `batchId`, template by template (each
 * webhook's rows in recording order).
 */
export function expandChunk(batchId: string, body: DeliveryBatchBody, from: number, to: number): OutboxInsert[] {
  const out: OutboxInsert[] = [];
  for (const { t, r } of body.g) {
    for (let i = 0; i < r.length; i += 2) {
      const lo = Math.max(r[i], from);
      const hi = Math.min(r[i] + r[i + 1], to);
      for (let pos = lo; pos < hi; pos++) {
        const webhookId = body.w[pos];
        out.push({
          webhookId,
          eventType: t.eventType,
          kind: t.kind,
          txId: t.txId,
          eventIndex: t.eventIndex,
          blockHash: t.blockHash,
          seq: t.seq ?? 0,
          blockHeight: t.blockHeight,
          data: t.data,
          fence: t.fence ?? false,
          deliveryId: derivedDeliveryId([batchId, webhookId, t.kind, t.txId, t.eventIndex, t.blockHash, t.seq ?? 0]),
        });
      }
    }
  }
  return out;
}
