/**
 * Hiro routes whose answers only a node's RPC or mempool has (SPEC.md: never an invented value):
 * each answers 501 NODE_RPC_REQUIRED, whatever the method. Other paths the Extended view does not
 * serve are 404 NOT_FOUND (docs/extended.md lists what it serves).
 */
import type { RequestHandler } from "express";
import { ExtendedError } from "./errors.js";

/** Express paths, matched for every method. */
export const NODE_ONLY_PATHS: readonly string[] = [
  "/v2/{*rest}",
  "/extended/v1/tx/mempool",
  "/extended/v1/tx/mempool/{*rest}",
  "/extended/v1/tx/:tx_id/raw",
  "/extended/v1/address/:principal/mempool",
  "/extended/v1/address/:principal/nonces",
  "/extended/v1/address/:principal/stx_inbound",
  "/extended/v1/fee_rate",
  "/extended/v2/mempool/{*rest}",
  "/extended/v1/faucets/{*rest}",
  "/extended/v1/microblock/unanchored/{*rest}",
];

export const nodeOnly: RequestHandler = (req, _res, next) => {
  next(
    new ExtendedError(
      501,
      "NODE_RPC_REQUIRED",
      "not served: this answer needs a stacks-node's RPC or mempool, which sluice's Extended view does not proxy",
      { path: req.path },
    ),
  );
};
