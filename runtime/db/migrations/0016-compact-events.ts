/**
 * chain.events in fewer bytes per event (runtime/chain/event-payload.ts, DESIGN.md §2 "Storage"):
 *
 * - The stored payload no longer repeats what the event's columns hold (sender, recipient, amount,
 *   asset identifier, print contract and topic), and the Clarity value's bytes (`raw_value`, hex
 *   in the payload) move to a bytea column, half the size: `chain.event_payload(...)` puts them back at read,
 *   so every reader sees the decoder's payload. A key the stored payload holds wins (an amount the
 *   node sent as "007" is kept as sent), so rows stored before this migration, which keep their
 *   full payload, read unchanged; so do rows loaded from an archive, whose bundles carry the full
 *   payload (runtime/archive/chain-tables.ts).
 * - The filter indexes of the Index and Streams routes key on a 64-bit hash of the value
 *   (`hashtextextended(v, 0)`, the hash that hash partitioning stores, so stable across versions)
 *   instead of the text itself: 8 bytes instead of 40–70, still ending in (block_height,
 *   event_index) so a filtered page stays one index range scan; readers also compare the column
 *   itself (runtime/chain/event-columns-sql.ts), so a hash collision costs one skipped row.
 * - The primary key on (index_block_hash, event_index) becomes a plain index on index_block_hash:
 *   every lookup is by block (or block and transaction), a block's rows are written by one
 *   statement that also inserts its chain.blocks row (whose key already refuses a second copy),
 *   and a non-unique btree stores each block hash once for all its events (deduplication).
 */
export const name = "compact-events";
export const sql = `
ALTER TABLE chain.events ADD COLUMN raw_value bytea;

CREATE FUNCTION chain.event_payload(event_type text, contract_id text, asset_identifier text, sender text,
    recipient text, amount numeric, topic text, raw_value bytea, payload jsonb) RETURNS jsonb
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT jsonb_strip_nulls(CASE event_type
    WHEN 'stx_lock' THEN jsonb_build_object('locked_address', sender, 'locked_amount', amount::text)
    WHEN 'print' THEN jsonb_build_object('contract_id', contract_id, 'topic', topic,
      'raw_value', '0x' || encode(raw_value, 'hex'))
    ELSE jsonb_build_object('asset_identifier', CASE WHEN left(event_type, 4) = 'stx_' THEN NULL ELSE asset_identifier END,
      'sender', sender, 'recipient', recipient, 'amount', amount::text, 'raw_value', '0x' || encode(raw_value, 'hex'))
  END) || payload
$fn$;

ALTER TABLE chain.events DROP CONSTRAINT events_pkey;
CREATE INDEX events_block ON chain.events (index_block_hash);

DROP INDEX chain.events_type_cursor;
DROP INDEX chain.events_sender_cursor;
DROP INDEX chain.events_recipient_cursor;
DROP INDEX chain.events_contract_cursor;
DROP INDEX chain.events_asset_cursor;
CREATE INDEX events_type_cursor ON chain.events (hashtextextended(event_type, 0), block_height, event_index)
  WHERE canonical AND committed;
CREATE INDEX events_sender_cursor ON chain.events (hashtextextended(sender, 0), block_height, event_index)
  WHERE canonical AND committed AND sender IS NOT NULL;
CREATE INDEX events_recipient_cursor ON chain.events (hashtextextended(recipient, 0), block_height, event_index)
  WHERE canonical AND committed AND recipient IS NOT NULL;
CREATE INDEX events_contract_cursor ON chain.events (hashtextextended(contract_id, 0), block_height, event_index)
  WHERE canonical AND committed AND contract_id IS NOT NULL;
CREATE INDEX events_asset_cursor ON chain.events (hashtextextended(asset_identifier, 0), block_height, event_index)
  WHERE canonical AND committed AND asset_identifier IS NOT NULL;
`;
