/**
 * Each block's active addresses and their STX movement (runtime/chain/address-activity.ts), read
 * by the Extended view's balances and address transactions (docs/extended.md). Written with each
 * block's rows and flipped with its canonical flag, like the other chain tables. Blocks stored before this migration are filled in
 * from the chain tables here, by the same rule. Also each block's transaction execution costs,
 * which the Extended view reports per transaction and per block (kept apart from
 * chain.transactions, whose columns are the archive's bundle format).
 */
import { REBUILD_SQL } from "../../chain/address-activity.js";

export const name = "extended";
export const sql = `
-- Each block's transaction execution costs, one row per block: costs[tx_index] is
-- [read_count, read_length, runtime, write_count, write_length] (null where the node sent none).
-- Blocks stored before this migration, or loaded from an archive, have no row.
CREATE TABLE chain.block_execution_costs (
  index_block_hash text PRIMARY KEY,
  costs jsonb NOT NULL
);

CREATE TABLE chain.address_activity (
  index_block_hash text NOT NULL,
  address text NOT NULL,
  block_height integer NOT NULL,
  canonical boolean NOT NULL,
  received numeric NOT NULL,
  sent numeric NOT NULL,
  fees numeric NOT NULL,
  miner_rewards numeric NOT NULL,
  PRIMARY KEY (index_block_hash, address)
);
-- /extended/v2/blocks/:height_or_hash takes a block hash as well as an index block hash.
CREATE INDEX blocks_block_hash ON chain.blocks (block_hash);
CREATE INDEX address_activity_address ON chain.address_activity (address) WHERE canonical;
${REBUILD_SQL.replaceAll("$1", "0").replaceAll("$2", "2147483647")};
`;
