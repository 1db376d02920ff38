/** Transaction routes: `/extended/v1/tx/:tx_id`, `/extended/v1/tx` (recent), `/extended/v1/tx/events`. */
import { TX_PAGE } from "./blocks.js";
import { type ExtendedHandler, pathParam } from "./context.js";
import { invalidParam, notFoundError } from "./errors.js";
import { type EventRow, readAddressEvents, readTxEvents } from "./event-reads.js";
import { optionalString, parseHash, parsePage, parsePrincipal } from "./params.js";
import { HIRO_EVENT_TYPE, renderEvent } from "./render-event.js";
import { calledContractId, renderTx } from "./render-tx.js";
import { renderTxList } from "./tx-render-batch.js";
import { readContractInterface, readRecentTxs, readTx } from "./tx-reads.js";

/** Events listed with one transaction (`event_limit`/`event_offset`) and by `/tx/events`. */
const EVENT_PAGE = { default: 20, max: 100 };

export const getTx: ExtendedHandler = async (req, { db }) => {
  const txId = parseHash(pathParam(req, "tx_id"), "tx_id");
  const limit = eventParam(req.query.event_limit, "event_limit", EVENT_PAGE.default, EVENT_PAGE.max);
  const offset = eventParam(req.query.event_offset, "event_offset", 0, Number.MAX_SAFE_INTEGER);
  const row = await readTx(db, txId);
  if (row === null) throw notFoundError("TX_NOT_FOUND", `could not find transaction by ID ${txId}`, { tx_id: txId });
  const events = await readTxEvents(db, txId, limit, offset);
  const called = calledContractId(row);
  const calledInterface = called === null ? null : await readContractInterface(db, called);
  return renderTx({ row, events, calledInterface });
};

export const listRecentTxs: ExtendedHandler = async (req, { db }) => {
  const { limit, offset } = parsePage(req.query, TX_PAGE.default, TX_PAGE.max);
  const page = await readRecentTxs(db, limit, offset);
  return { limit, offset, total: page.total, results: await renderTxList(db, page.rows, req.query) };
};

/** `tx_id` or `address` (exactly one), optional `type` filter (Hiro's event type names). */
export const listEvents: ExtendedHandler = async (req, { db }) => {
  const { limit, offset } = parsePage(req.query, EVENT_PAGE.default, EVENT_PAGE.max);
  const txIdText = optionalString(req.query, "tx_id");
  const addressText = optionalString(req.query, "address");
  if ((txIdText === undefined) === (addressText === undefined))
    throw invalidParam("exactly one of tx_id or address is required");
  const types = typeFilter(req.query.type);
  const rows: EventRow[] =
    txIdText !== undefined
      ? await readTxEvents(db, parseHash(txIdText, "tx_id"), limit, offset, types)
      : await readAddressEvents(db, parsePrincipal(addressText as string, "address"), limit, offset, types);
  return { limit, offset, events: rows.map(renderEvent) };
};

const HIRO_TYPES = new Set(Object.values(HIRO_EVENT_TYPE));

/** Hiro's `type` values (repeated or comma-separated) → sluice's event types; null for no filter. */
function typeFilter(raw: unknown): string[] | null {
  if (raw === undefined) return null;
  const list = (Array.isArray(raw) ? raw : [raw]).flatMap((v) => String(v).split(","));
  for (const t of list) {
    if (!HIRO_TYPES.has(t)) throw invalidParam(`invalid event type "${t}"`, { type: t, allowed: [...HIRO_TYPES] });
  }
  return Object.keys(HIRO_EVENT_TYPE).filter((ours) => list.includes(HIRO_EVENT_TYPE[ours]));
}

function eventParam(raw: unknown, name: string, fallback: number, max: number): number {
  if (raw === undefined || raw === "") return fallback;
  if (typeof raw !== "string" || !/^\d{1,15}$/.test(raw) || Number(raw) > max)
    throw invalidParam(`${name} must be an integer between 0 and ${max}`, { [name]: raw });
  return Number(raw);
}
