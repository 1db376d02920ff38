/** `GET /extended` and `/extended/v1/status`: Hiro's server status with the canonical chain tip. */
import { readChainTip } from "./block-reads.js";
import type { ExtendedHandler } from "./context.js";

/** Reported as `server_version`: which API answers, for clients that log it. */
export const SERVER_VERSION = "sluice-extended";

export const getStatus: ExtendedHandler = async (_req, { db }) => {
  const tip = await readChainTip(db);
  return {
    server_version: SERVER_VERSION,
    status: "ready",
    chain_tip:
      tip === null
        ? null
        : {
            block_height: Number(tip.block_height),
            block_hash: tip.block_hash,
            index_block_hash: tip.index_block_hash,
            burn_block_height: Number(tip.burn_block_height),
          },
  };
};
