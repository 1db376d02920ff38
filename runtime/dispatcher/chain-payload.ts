/**
 * `data` of chain deliveries (SPEC.md "Chain apply data", "Reorg rollback data", "Test
 * delivery"), pure. `event.type` follows SPEC.md: the node's raw event name for event-level
 * triggers (`stx_transfer_event`, `contract_event` for prints, …), the bare transaction type for
 * tx-level ones (`contract_call`, flat, raw-hex `function_args`; `smart_contract` for deploys).
 */
import { EVENT_TYPE_NAMES } from "../chain/event-type-names.js";
import type { ClarityJson, DecodedEvent, DecodedTx } from "../chain/types.js";
import type { ChainApplyData, DeliveryEvent, JsonObject, RollbackData } from "../formats/chain-payload.js";
import type { TriggerType } from "./triggers.js";

export type { ChainApplyData, DeliveryEvent, JsonObject, RollbackData };

/** SPEC.md Limits: "orphaned entries per rollback delivery: 500". */
export const MAX_ORPHANED = 500;

/** The `event` object of an event-level delivery. */
export function buildEventBody(e: DecodedEvent): DeliveryEvent {
  return { type: EVENT_TYPE_NAMES[e.type].node, event_index: e.eventIndex, tx_id: e.txId, data: eventData(e) };
}

function eventData(e: DecodedEvent): Record<string, ClarityJson> {
  const p = e.payload;
  switch (e.type) {
    case "stx_transfer":
      return { memo: p.memo ?? "", amount: p.amount, sender: p.sender, recipient: p.recipient };
    case "print": {
      // The node's contract_event shape: contract_identifier, topic, raw_value; plus the decoded value.
      const out: Record<string, ClarityJson> = {
        contract_identifier: e.contractId,
        topic: e.topic,
        value: p.value ?? null,
        raw_value: p.raw_value,
      };
      if (p.decode_error !== undefined) out.decode_error = p.decode_error;
      return out;
    }
    default:
      return { ...p };
  }
}

/** The `event` object of a tx-level delivery: flat contract_call, or smart_contract for a deploy. */
export function buildTxBody(tx: DecodedTx): DeliveryEvent {
  if (tx.txType === "contract_call") {
    return {
      type: "contract_call",
      event_index: -1,
      tx_id: tx.txId,
      contract_id: tx.contractId,
      function_name: tx.functionName,
      function_args: tx.functionArgs ?? [],
      caller: tx.sender,
    };
  }
  const contractId = tx.contractId ?? "";
  return {
    type: "smart_contract",
    event_index: -1,
    tx_id: tx.txId,
    data: {
      contract_id: contractId,
      deployer: tx.sender,
      contract_name: contractId.slice(contractId.indexOf(".") + 1),
    },
  };
}

export interface ApplyInput {
  trigger: TriggerType;
  /** The transaction; its fields are read only for tx-level triggers (no `event`). */
  tx: Pick<DecodedTx, "txId"> & Partial<DecodedTx>;
  event?: DecodedEvent;
  blockHash: string;
  blockHeight: number;
  isReplay?: boolean;
}

/** Chain apply `data`, exactly SPEC.md's table (plus `is_replay: true` on replays). */
export function buildApplyData(input: ApplyInput): ChainApplyData {
  const data: ChainApplyData = {
    action: "apply",
    trigger: input.trigger,
    tx_id: input.tx.txId,
    block_hash: input.blockHash,
    block_height: input.blockHeight,
    canonical: true,
    event: input.event ? buildEventBody(input.event) : buildTxBody(input.tx as DecodedTx),
  };
  if (input.isReplay) data.is_replay = true;
  return data;
}

/**
 * Rollback `data` for the applies a reorg orphaned: at most 500 entries; `truncated` tells the
 * receiver to treat everything at or above `fork_point_height` — the lowest orphaned height
 * (README "Reorgs") — as orphaned.
 */
export function buildRollbackData(forkPointHeight: number, orphaned: readonly ChainApplyData[]): RollbackData {
  const entries = orphaned.slice(0, MAX_ORPHANED).map((a) => ({ tx_id: a.tx_id, event: a.event }));
  return {
    action: "rollback",
    fork_point_height: forkPointHeight,
    orphaned: entries,
    truncated: orphaned.length > MAX_ORPHANED,
  };
}

/** `chain.test.apply` data; `subscription_id` is the deprecated alias of `webhook_id` (SPEC.md Versioning 4). */
export function buildTestData(webhookId: string, sentAt: Date, message?: string): JsonObject {
  return {
    test: true,
    message: message ?? "Test delivery from sluice. Check data.test before treating a delivery as live.",
    webhook_id: webhookId,
    subscription_id: webhookId,
    sent_at: sentAt.toISOString(),
  };
}

/** Delivery `type` of a chain apply. */
export const applyType = (trigger: TriggerType) => `chain.${trigger}.apply`;
export const ROLLBACK_TYPE = "chain.reorg.rollback";
export const TEST_TYPE = "chain.test.apply";
