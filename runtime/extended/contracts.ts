/** Contract routes: `/extended/v1/contract/:contract_id` and `/extended/v1/contract/:contract_id/events`. */
import { type ExtendedHandler, pathParam } from "./context.js";
import { notFoundError } from "./errors.js";
import { readContractLogs } from "./event-reads.js";
import { parseContractId, parsePage } from "./params.js";
import { renderEvent } from "./render-event.js";
import { readTxWire } from "./tx-wire.js";
import { readContractDeploy } from "./tx-reads.js";

/** Hiro's contract events page: 20 by default, 50 at most. */
const CONTRACT_EVENT_PAGE = { default: 20, max: 50 };

export const getContract: ExtendedHandler = async (req, { db }) => {
  const contractId = parseContractId(pathParam(req, "contract_id"));
  const deploy = await readContractDeploy(db, contractId);
  if (deploy === null)
    throw notFoundError("CONTRACT_NOT_FOUND", `cannot find contract by ID ${contractId}`, { contract_id: contractId });
  const wire = readTxWire(deploy.raw_tx);
  const payload = wire?.payload.kind === "smart_contract" ? wire.payload : null;
  return {
    tx_id: deploy.tx_id,
    canonical: deploy.canonical,
    contract_id: contractId,
    block_height: Number(deploy.block_height),
    clarity_version: payload?.clarityVersion ?? null,
    source_code: payload?.sourceCode ?? "",
    abi: deploy.contract_interface === null ? null : JSON.stringify(deploy.contract_interface),
  };
};

export const getContractEvents: ExtendedHandler = async (req, { db }) => {
  const contractId = parseContractId(pathParam(req, "contract_id"));
  const { limit, offset } = parsePage(req.query, CONTRACT_EVENT_PAGE.default, CONTRACT_EVENT_PAGE.max);
  const rows = await readContractLogs(db, contractId, limit, offset);
  return { limit, offset, results: rows.map(renderEvent) };
};
