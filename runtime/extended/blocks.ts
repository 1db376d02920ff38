/**
 * Block routes: `/extended/v2/blocks`, `/extended/v2/blocks/:height_or_hash`,
 * `/extended/v2/blocks/:height_or_hash/transactions`, `/extended/v1/block/by_height/:height`.
 */
import { readBlock, readBlockPage, readBlockTxIds } from "./block-reads.js";
import { type ExtendedHandler, pathParam } from "./context.js";
import { notFoundError } from "./errors.js";
import { parseBlockId, parseHeight, parsePage } from "./params.js";
import { renderBlockV1, renderNakamotoBlock } from "./render-block.js";
import { renderTxList } from "./tx-render-batch.js";
import { readBlockTxs } from "./tx-reads.js";

/** Hiro's block list page: 20 by default, 30 at most. */
const BLOCK_PAGE = { default: 20, max: 30 };
/** Hiro's transaction list page: 20 by default, 50 at most. */
export const TX_PAGE = { default: 20, max: 50 };

export const listBlocks: ExtendedHandler = async (req, { db }) => {
  const { limit, offset } = parsePage(req.query, BLOCK_PAGE.default, BLOCK_PAGE.max);
  const page = await readBlockPage(db, limit, offset);
  return { limit, offset, total: page.total, results: page.rows.map(renderNakamotoBlock) };
};

export const getBlock: ExtendedHandler = async (req, { db }) => {
  const id = pathParam(req, "height_or_hash");
  const block = await readBlock(db, parseBlockId(id));
  if (block === null) throw notFoundError("BLOCK_NOT_FOUND", "Block not found", { height_or_hash: id });
  return renderNakamotoBlock(block);
};

export const getBlockTransactions: ExtendedHandler = async (req, { db }) => {
  const id = pathParam(req, "height_or_hash");
  const { limit, offset } = parsePage(req.query, TX_PAGE.default, TX_PAGE.max);
  const block = await readBlock(db, parseBlockId(id));
  if (block === null) throw notFoundError("BLOCK_NOT_FOUND", "Block not found", { height_or_hash: id });
  const rows = await readBlockTxs(db, block.index_block_hash, limit, offset);
  return { limit, offset, total: Number(block.tx_count), results: await renderTxList(db, rows, req.query) };
};

export const getBlockByHeight: ExtendedHandler = async (req, { db }) => {
  const height = parseHeight(pathParam(req, "height"));
  const block = await readBlock(db, { kind: "height", height });
  if (block === null) throw notFoundError("BLOCK_NOT_FOUND", `cannot find block by height ${height}`, { height });
  return renderBlockV1(block, await readBlockTxIds(db, block.index_block_hash));
};
