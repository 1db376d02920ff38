/**
 * Test helpers for compiled handlers: HandlerContexts built by hand, print payloads decoded from
 * raw Clarity hex the way DESIGN.md §3 describes, and the generated modules by name.
 */
import { type ClarityValue, hexToCV } from "@stacks/transactions";
import { NETWORK_CONTRACTS } from "../../runtime/config/networks.js";
import type { ClarityJson } from "../../runtime/chain/types.js";
import type { BlockView, EventView, HandlerContext, SubgraphModule, TxView } from "../../runtime/subgraphs/types.js";
import { subgraphs } from "../../generated/index.js";

export const DEVNET_CONFIG: Record<string, string> = { ...NETWORK_CONTRACTS.devnet };

export function makeContext(parts: {
  event?: Partial<EventView>;
  tx?: Partial<TxView>;
  block?: Partial<BlockView>;
  config?: Record<string, string>;
}): HandlerContext {
  return {
    event: {
      type: "print",
      event_index: 0,
      contract_id: null,
      asset_identifier: null,
      sender: null,
      recipient: null,
      amount: null,
      topic: null,
      value: null,
      payload: {},
      ...parts.event,
    },
    tx: {
      id: "0x00000000000000000000000000000000000000000000000000000000000000aa",
      sender: "ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM",
      type: "contract_call",
      contract_id: null,
      function_name: null,
      status: "success",
      index: 0,
      ...parts.tx,
    },
    block: {
      height: 100,
      hash: "0xbb",
      index_block_hash: "0xcc",
      time: 1_767_225_600,
      ...parts.block,
    },
    config: parts.config ?? DEVNET_CONFIG,
  };
}

/** Clarity → plain JSON (DESIGN.md §3): tuples → objects, ints → decimal strings, buffers → 0x-hex, optionals → value or null. */
export function clarityToJson(cv: ClarityValue): ClarityJson {
  switch (cv.type) {
    case "tuple":
      return Object.fromEntries(Object.entries(cv.value).map(([key, value]) => [key, clarityToJson(value)]));
    case "list":
      return cv.value.map(clarityToJson);
    case "uint":
    case "int":
      return String(cv.value);
    case "buffer":
      return `0x${cv.value}`;
    case "none":
      return null;
    case "some":
      return clarityToJson(cv.value);
    case "ok":
      return { ok: clarityToJson(cv.value) };
    case "err":
      return { err: clarityToJson(cv.value) };
    case "true":
      return true;
    case "false":
      return false;
    case "address":
    case "contract":
    case "ascii":
    case "utf8":
      return cv.value;
    default:
      throw new Error(`unexpected Clarity value ${JSON.stringify(cv)}`);
  }
}

export function decodePrint(rawValue: string): ClarityJson {
  return clarityToJson(hexToCV(rawValue));
}

/** A print EventView the way the engine builds one. */
export function printEvent(contractId: string, payload: ClarityJson, eventIndex = 0): Partial<EventView> {
  const topic =
    payload !== null && typeof payload === "object" && !Array.isArray(payload) && typeof payload.topic === "string"
      ? payload.topic
      : "print";
  return { type: "print", event_index: eventIndex, contract_id: contractId, topic, value: payload, payload };
}

export function subgraphNamed(name: string): SubgraphModule {
  const module = subgraphs.find((s) => s.name === name);
  if (module === undefined) throw new Error(`no generated subgraph ${name}`);
  return module;
}

export function utf8Hex(text: string): string {
  return `0x${Buffer.from(text, "utf8").toString("hex")}`;
}
