/**
 * The fields an expression path may name (DESIGN.md §3): the views of runtime/subgraphs/types.ts
 * (EventView, TxView, BlockView) and the configuration keys of runtime/config/networks.ts.
 * Only `event.payload` and `event.value` have free-form fields below them (decoded Clarity JSON).
 */
import { NETWORK_CONTRACTS } from "../../runtime/config/networks.js";

/** Static value types of the checker; `json` is unknown decoded data (anything goes). */
export type ValueType = "text" | "number" | "boolean" | "null" | "json";

export interface ViewField {
  readonly type: ValueType;
  /** Decoded Clarity JSON: any sub-path is allowed. */
  readonly open?: boolean;
}

const EVENT_FIELDS: Record<string, ViewField> = {
  type: { type: "text" },
  event_index: { type: "number" },
  contract_id: { type: "text" },
  asset_identifier: { type: "text" },
  sender: { type: "text" },
  recipient: { type: "text" },
  amount: { type: "number" },
  topic: { type: "text" },
  value: { type: "json", open: true },
  payload: { type: "json", open: true },
};

const TX_FIELDS: Record<string, ViewField> = {
  id: { type: "text" },
  sender: { type: "text" },
  type: { type: "text" },
  contract_id: { type: "text" },
  function_name: { type: "text" },
  status: { type: "text" },
  index: { type: "number" },
};

const BLOCK_FIELDS: Record<string, ViewField> = {
  height: { type: "number" },
  hash: { type: "text" },
  index_block_hash: { type: "text" },
  time: { type: "number" },
};

/** Keys usable as `config.X` in expressions and `${config.X}` in source filters. */
export const CONFIG_KEYS: readonly string[] = Object.keys(NETWORK_CONTRACTS.mainnet).sort();

const CONFIG_FIELDS: Record<string, ViewField> = Object.fromEntries(
  CONFIG_KEYS.map((key) => [key, { type: "text" } satisfies ViewField]),
);

/** Fields per path root. */
export const VIEW_FIELDS: Readonly<Record<string, Readonly<Record<string, ViewField>>>> = {
  event: EVENT_FIELDS,
  tx: TX_FIELDS,
  block: BLOCK_FIELDS,
  config: CONFIG_FIELDS,
};
