/**
 * How SQL reads chain.events' filter columns and payload (migration 0016-compact-events):
 *
 * - The filter indexes key on `hashtextextended(column, 0)`, so an equality on event_type, sender,
 *   recipient, contract_id or asset_identifier must name the hash to use its index, and the
 *   column itself to be exact (two values may share a hash).
 * - The stored payload leaves out what the columns hold (raw_value among them);
 *   `chain.event_payload(...)` gives the decoder's payload back.
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
