/**
 * How SQL reads chain.events' filter columns and payload (migration 0016-compact-events):
 *
 * - The filter indexes key on `hashtextextended(column, 0)`, so an equality on event_type, sender,
 *   recipient, contract_id or asset_identifier must name the hash to use its index, and the
 *   column itself to be exact (two values may share a hash).
 * - The stored payload leaves out what the columns hold (raw_value among them);
 *   `chain.event_payload(...)` gives the decoder's payload back; `eventPayloadTextSql` gives the
 *   same value as JSON text at a fraction of the cost (pages render hundreds of events each).
 */

/** The chain.events columns with a hash-keyed filter index. */
export type HashedEventColumn = "event_type" | "sender" | "recipient" | "contract_id" | "asset_identifier";

/**
 * `alias.column = value` in a form the column's filter index serves; `value` is SQL (a
 * placeholder such as `$3` or a quoted literal), evaluated twice.
 */
export function eventColumnEquals(alias: string, column: HashedEventColumn, value: string): string {
  const col = alias === "" ? column : `${alias}.${column}`;
  return `(hashtextextended(${col}, 0) = hashtextextended(${value}, 0) AND ${col} = ${value})`;
}

/** The full payload of a chain.events row (`alias` its table alias, "" for none). */
export function eventPayloadSql(alias: string): string {
  const c = (name: string) => (alias === "" ? name : `${alias}.${name}`);
  return `chain.event_payload(${["event_type", "contract_id", "asset_identifier", "sender", "recipient", "amount", "topic", "raw_value", "payload"].map(c).join(", ")})`;
}

/** Payload keys chain.event_payload rebuilds from the columns: a stored payload holding one was not compacted. */
const REBUILT_KEYS = [
  "asset_identifier",
  "sender",
  "recipient",
  "amount",
  "raw_value",
  "locked_address",
  "locked_amount",
  "contract_id",
  "topic",
];

/**
 * The full payload of a chain.events row as JSON text: the same value as
 * `chain.event_payload(...)::text`, built as text. Building a jsonb object, stripping its nulls,
 * merging it and printing it was most of a page's database time; here a compact row's rebuilt
 * keys are printed straight from the columns (strings escaped by to_json, null columns left out
 * as jsonb_strip_nulls does) and followed by the stored payload's own text. Rebuilt keys come
 * first, so the keys may be in another order than jsonb prints them; the value is the same. A
 * stored payload that still holds a rebuilt key (stored before compaction, loaded from an
 * archive, or an amount kept as sent) takes the jsonb function, whose merge lets it win.
 */
export function eventPayloadTextSql(alias: string): string {
  const c = (name: string) => (alias === "" ? name : `${alias}.${name}`);
  const text = (key: string, column: string) => `'"${key}": ' || to_json(${c(column)})::text`;
  // numeric::text is digits, a sign and a point: nothing to escape.
  const decimal = (key: string) => `'"${key}": "' || ${c("amount")}::text || '"'`;
  const raw = `'"raw_value": "0x' || encode(${c("raw_value")}, 'hex') || '"'`;
  const object = (pieces: string[]) =>
    `CASE WHEN ${c("payload")} = '{}'::jsonb THEN '{' || concat_ws(', ', ${pieces.join(", ")}) || '}'
      ELSE '{' || concat_ws(', ', ${pieces.join(", ")}, substr(${c("payload")}::text, 2)) END`;
  const notStx = `CASE WHEN left(${c("event_type")}, 4) <> 'stx_' THEN ${text("asset_identifier", "asset_identifier")} END`;
  return `CASE
    WHEN ${c("payload")} ?| '{${REBUILT_KEYS.join(",")}}'::text[] THEN ${eventPayloadSql(alias)}::text
    WHEN ${c("event_type")} = 'stx_lock' THEN ${object([text("locked_address", "sender"), decimal("locked_amount")])}
    WHEN ${c("event_type")} = 'print' THEN ${object([text("contract_id", "contract_id"), text("topic", "topic"), raw])}
    ELSE ${object([notStx, text("sender", "sender"), text("recipient", "recipient"), decimal("amount"), raw])}
  END`;
}
