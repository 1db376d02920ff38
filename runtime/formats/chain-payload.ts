/**
 * The shape of chain deliveries' `data` (SPEC.md "Chain apply data", "Reorg rollback data"):
 * written by the dispatcher (runtime/dispatcher/chain-payload.ts builds it) and read by receivers
 * (runtime/sdk/webhook-receiver.ts). Types only.
 */
import type { TriggerType } from "./trigger-types.js";

export type JsonObject = { [key: string]: unknown };

/** `event` of an apply delivery and of a rollback's orphaned entry. */
export type DeliveryEvent = JsonObject & { type: string; event_index: number; tx_id: string };

export interface ChainApplyData {
  action: "apply";
  trigger: TriggerType;
  tx_id: string;
  block_hash: string;
  block_height: number;
  canonical: boolean;
  event: DeliveryEvent;
  /** Present (true) on replayed deliveries only. */
  is_replay?: true;
}

export interface RollbackData {
  action: "rollback";
  fork_point_height: number;
  orphaned: { tx_id: string; event: DeliveryEvent }[];
  truncated: boolean;
}
