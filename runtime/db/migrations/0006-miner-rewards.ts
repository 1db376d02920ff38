/**
 * Matured miner rewards of each stored block (the `/new_block` body's `matured_miner_rewards`),
 * so a backfill or reindex replaying stored blocks offers the same `miner_reward` sources as
 * live ingestion. NULL marks a block stored before this column existed: its rewards were not
 * kept and read as none (specs/README.md, `miner_reward`).
 */
export const name = "miner-rewards";
export const sql = `
ALTER TABLE chain.blocks ADD COLUMN matured_miner_rewards jsonb;
`;
