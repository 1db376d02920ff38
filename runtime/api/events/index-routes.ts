/**
 * Handlers of the `/v1/index/...` routes (SPEC.md "Index and Streams routes"):
 * - listIndexEvents: GET /v1/index/events — canonical events in cursor order (events/page.ts);
 * - getPrintSchema: GET /v1/index/contracts/:contract_id/print-schema — per-topic schemas of the
 *   contract's prints (events/print-schema.ts), `Cache-Control: public, max-age=300`, weak ETag, 304;
 * - getTransactionProof: GET /v1/index/transactions/:tx_id/proof — Merkle inclusion proof
 *   (events/tx-proof.ts).
 * Handler names are the routes' operationIds.
 */
import { badRequest, notFound } from "../../internal/errors.js";
import { IMMUTABLE, PRINT_SCHEMA_MAX_AGE, SHORT_LIVED, escapeJsonHtml, weakEtag } from "../http/cache-headers.js";
import { readPage } from "./page-read.js";
import { parseIndexEventsQuery } from "./query.js";
import { sendJsonText } from "../http/json-response.js";
import { rejectUnknownParams } from "../http/query-params.js";
import { readTxProof } from "./tx-proof.js";
import { readChainData } from "../http/chain-reads.js";
import type { EventsHandler } from "./context.js";

/** GET /v1/index/events */
export const listIndexEvents: EventsHandler = async (req, res, ctx) => {
  const query = parseIndexEventsQuery(req.query);
  const page = await readPage(ctx, query);
  sendJsonText(req, res, page.body, {
    etag: page.etag,
    cacheDirectives: page.cacheDirectives,
    publishedOnLoopback: ctx.config.publishedOnLoopback,
  });
};

/** `<address>.<contract-name>`: a c32 standard principal, a dot, a Clarity contract name. */
const CONTRACT_ID_RE = /^S[0-9A-Z]{27,40}\.[a-zA-Z][a-zA-Z0-9_-]{0,127}$/;

/** GET /v1/index/contracts/:contract_id/print-schema */
export const getPrintSchema: EventsHandler = async (req, res, ctx) => {
  const names = Object.keys(req.query);
  if (names.length) {
    // SPEC.md Errors: "400 VALIDATION_ERROR: any query parameter sent to the print-schema route".
    throw badRequest(
      "VALIDATION_ERROR",
      `print-schema takes no query parameters; got ${names.map((n) => JSON.stringify(n)).join(", ")}`,
      {
        parameters: names,
      },
    );
  }
  const contractId = String(req.params.contract_id);
  if (!CONTRACT_ID_RE.test(contractId)) {
    throw badRequest("INVALID_PARAMETER", "contract_id must be a contract identifier <address>.<contract-name>", {
      parameter: "contract_id",
    });
  }
  const schema = await ctx.printSchemas.get(ctx.db, contractId);
  if (!schema)
    throw notFound("CONTRACT_NOT_FOUND", `no canonical deploy or event of contract ${contractId} is indexed`, {
      contract_id: contractId,
    });
  sendJsonText(req, res, escapeJsonHtml(schema.json), {
    etag: schema.etag,
    cacheDirectives: PRINT_SCHEMA_MAX_AGE,
    publishedOnLoopback: ctx.config.publishedOnLoopback,
  });
};

const TX_ID_RE = /^0x[0-9a-fA-F]{64}$/;

/** GET /v1/index/transactions/:tx_id/proof */
export const getTransactionProof: EventsHandler = async (req, res, ctx) => {
  rejectUnknownParams(req.query, []);
  const txId = String(req.params.tx_id);
  if (!TX_ID_RE.test(txId)) {
    throw badRequest("INVALID_PARAMETER", "tx_id must be 0x followed by 64 hex digits", { parameter: "tx_id" });
  }
  const { value: proofAndTip } = await readChainData(ctx, async (q) => {
    const proof = await readTxProof(q, txId.toLowerCase());
    const [tip] = (await q.query<{ finalized_height: number | null }>("SELECT finalized_height FROM control.chain_tip"))
      .rows;
    return { proof, tip };
  });
  const { proof, tip } = proofAndTip;
  const final =
    tip?.finalized_height !== null &&
    tip?.finalized_height !== undefined &&
    proof.block.block_height <= tip.finalized_height;
  const json = JSON.stringify(proof);
  sendJsonText(req, res, escapeJsonHtml(json), {
    etag: weakEtag(json),
    cacheDirectives: final ? IMMUTABLE : SHORT_LIVED,
    publishedOnLoopback: ctx.config.publishedOnLoopback,
  });
};
