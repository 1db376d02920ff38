/**
 * The names of a chain event type (README "Event type names"). Each event type has three names
 * users meet: ours (Streams `event_type`, e.g. `print`), the trigger and spec-source name (e.g.
 * `print_event`) and the stacks-node's (e.g. `contract_event`). Wherever a type is named in a
 * request (Streams `types`/`not_types`, webhook trigger `type`, spec source `type`) any of the
 * three is accepted; this table is the one place they are related. Pure.
 */
import { EVENT_TYPES, type EventType } from "./types.js";

interface EventTypeNames {
  /** Trigger and spec-source name. */
  trigger: string;
  /** The stacks-node's name in `/new_block` events. */
  node: string;
}

/** Our event type → its other names. */
export const EVENT_TYPE_NAMES: Readonly<Record<EventType, EventTypeNames>> = {
  stx_transfer: { trigger: "stx_transfer", node: "stx_transfer_event" },
  stx_mint: { trigger: "stx_mint", node: "stx_mint_event" },
  stx_burn: { trigger: "stx_burn", node: "stx_burn_event" },
  stx_lock: { trigger: "stx_lock", node: "stx_lock_event" },
  ft_transfer: { trigger: "ft_transfer", node: "ft_transfer_event" },
  ft_mint: { trigger: "ft_mint", node: "ft_mint_event" },
  ft_burn: { trigger: "ft_burn", node: "ft_burn_event" },
  nft_transfer: { trigger: "nft_transfer", node: "nft_transfer_event" },
  nft_mint: { trigger: "nft_mint", node: "nft_mint_event" },
  nft_burn: { trigger: "nft_burn", node: "nft_burn_event" },
  print: { trigger: "print_event", node: "contract_event" },
};

const BY_ANY_NAME = new Map<string, EventType>();
for (const type of EVENT_TYPES) {
  const names = EVENT_TYPE_NAMES[type];
  for (const name of [type, names.trigger, names.node]) BY_ANY_NAME.set(name, type);
}

/** Our event type for any of its names (`print`, `print_event`, `contract_event`), else undefined. */
export function eventTypeNamed(name: string): EventType | undefined {
  return BY_ANY_NAME.get(name);
}

/** Our event type for a stacks-node event name only (the decoder's table), else undefined. */
export function eventTypeOfNodeName(nodeName: string): EventType | undefined {
  const type = BY_ANY_NAME.get(nodeName);
  return type !== undefined && EVENT_TYPE_NAMES[type].node === nodeName ? type : undefined;
}

/**
 * The trigger/source name for a name given where a trigger or spec-source type is expected: an
 * event type's other names become its trigger name (`print` → `print_event`); any other name
 * (`contract_call`, `sbtc_deposit`, an unknown one) is returned as given.
 */
export function triggerTypeName(name: string): string {
  const type = BY_ANY_NAME.get(name);
  return type === undefined ? name : EVENT_TYPE_NAMES[type].trigger;
}

/** Every accepted name of every event type, ours first (for error messages). */
export function allEventTypeNames(): string[] {
  return [
    ...EVENT_TYPES,
    ...EVENT_TYPES.flatMap((t) => [EVENT_TYPE_NAMES[t].trigger, EVENT_TYPE_NAMES[t].node]),
  ].filter((name, i, all) => all.indexOf(name) === i);
}
