/**
 * Indexes for the Index and Streams read API (SPEC.md "Index and Streams routes", DESIGN.md §8):
 * every filter the Streams route accepts gets a composite index whose trailing columns match the
 * keyset ORDER BY (block_height, event_index), partial on the rows those routes serve
 * (canonical AND committed), so a filtered page is one index range scan at any depth. The
 * unfiltered cursor index `events_cursor` comes from 0001-core.
 *
 * Also: deployed contracts by id (the print-schema route tells an unknown contract from one that
 * never printed) — chain.transactions has no other index on contract_id.
 */
export const name = "event-indexes";
export const sql = `
CREATE INDEX events_type_cursor ON chain.events (event_type, block_height, event_index) WHERE canonical AND committed;
CREATE INDEX events_sender_cursor ON chain.events (sender, block_height, event_index) WHERE canonical AND committed AND sender IS NOT NULL;
CREATE INDEX events_recipient_cursor ON chain.events (recipient, block_height, event_index) WHERE canonical AND committed AND recipient IS NOT NULL;
CREATE INDEX events_contract_cursor ON chain.events (contract_id, block_height, event_index) WHERE canonical AND committed AND contract_id IS NOT NULL;
CREATE INDEX events_asset_cursor ON chain.events (asset_identifier, block_height, event_index) WHERE canonical AND committed AND asset_identifier IS NOT NULL;
CREATE INDEX transactions_deployed_contract ON chain.transactions (contract_id)
  WHERE tx_type IN ('smart_contract', 'versioned_smart_contract');
`;
