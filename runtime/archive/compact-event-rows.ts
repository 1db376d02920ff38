/**
 * A bundle's events as chain.events stores them. Bundles carry each event's full payload
 * (docs/archive-format.md: the format does not depend on how a database stores it); a restore
 * stores it compact, as ingestion does (chain/event-payload.ts: no key the row's columns rebuild,
 * `raw_value` as bytes), so a restored database is the size of an ingested one and reads,
 * exports and verifies to the same bytes. Pure: COPY text rows in, COPY text rows out.
 *
 * A row this cannot compact exactly — a payload that is not a JSON object, or that holds a JSON
 * number (a round trip through JavaScript numbers could change its digits) — is stored as the
 * bundle has it, with no raw_value: the read path prefers what the payload holds.
 */
import { storedPayload } from "../chain/event-payload.js";
import type { ClarityJson, EventType } from "../chain/types.js";
import { CHAIN_TABLES } from "./chain-tables.js";

const BUNDLE_COLUMNS = CHAIN_TABLES.find((t) => t.name === "chain.events")?.columns ?? [];
/** The columns a restore's COPY of events fills: the bundle's, then raw_value. */
export const RESTORED_EVENT_COLUMNS: readonly string[] = [...BUNDLE_COLUMNS, "raw_value"];

const at = (name: string) => {
  const i = BUNDLE_COLUMNS.indexOf(name);
  if (i < 0) throw new Error(`bundle events have no ${name} column`);
  return i;
};
const COL = {
  type: at("event_type"),
  contractId: at("contract_id"),
  assetIdentifier: at("asset_identifier"),
  sender: at("sender"),
  recipient: at("recipient"),
  amount: at("amount"),
  topic: at("topic"),
  payload: at("payload"),
};

const NULL = "\\N";
const UNESCAPE: Record<string, string> = { b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v" };

/** A COPY text field's value (null for `\N`). */
export function copyFieldValue(field: string): string | null {
  if (field === NULL) return null;
  if (!field.includes("\\")) return field;
  return field.replace(/\\(.)/gs, (_all, c: string) => UNESCAPE[c] ?? c);
}

/** A value as a COPY text field. */
export function copyField(value: string | null): string {
  if (value === null) return NULL;
  return value.replace(/[\\\n\r\t]/g, (c) => (c === "\\" ? "\\\\" : c === "\n" ? "\\n" : c === "\r" ? "\\r" : "\\t"));
}

function holdsNumber(v: ClarityJson): boolean {
  if (typeof v === "number") return true;
  if (v === null || typeof v !== "object") return false;
  return Array.isArray(v) ? v.some(holdsNumber) : Object.values(v).some(holdsNumber);
}

/** One bundle events row (COPY text, without its newline) as stored: compact payload, raw_value appended. */
export function compactEventRow(line: string): string {
  return compactEventFields(line.split("\t"), line);
}

/** compactEventRow of a row already split into its fields (which it reuses). */
function compactEventFields(fields: string[], line: string): string {
  if (fields.length !== BUNDLE_COLUMNS.length) return `${line}\t${NULL}`; // COPY refuses it with its own message
  const text = copyFieldValue(fields[COL.payload]);
  let payload: ClarityJson = null;
  try {
    payload = text === null ? null : (JSON.parse(text) as ClarityJson);
  } catch {
    return `${line}\t${NULL}`;
  }
  if (payload === null || typeof payload !== "object" || Array.isArray(payload) || holdsNumber(payload))
    return `${line}\t${NULL}`;
  const stored = storedPayload({
    type: copyFieldValue(fields[COL.type]) as EventType,
    contractId: copyFieldValue(fields[COL.contractId]),
    assetIdentifier: copyFieldValue(fields[COL.assetIdentifier]),
    sender: copyFieldValue(fields[COL.sender]),
    recipient: copyFieldValue(fields[COL.recipient]),
    amount: copyFieldValue(fields[COL.amount]),
    topic: copyFieldValue(fields[COL.topic]),
    payload: payload as Record<string, ClarityJson>,
  });
  fields[COL.payload] = copyField(JSON.stringify(stored.payload));
  // bytea in COPY text: `\x` + hex, its backslash escaped.
  fields.push(stored.rawValue === null ? NULL : `\\\\x${stored.rawValue.toString("hex")}`);
  return fields.join("\t");
}

/**
 * compactEventRow over a stream of COPY text chunks (rows may be cut anywhere across chunks);
 * `onRow`, when given, sees each bundle row's fields first (a restore derives rows from them).
 */
export async function* compactEventRows(
  data: AsyncIterable<Buffer>,
  onRow?: (fields: readonly string[]) => void,
): AsyncIterable<Buffer> {
  const compact = (line: string) => {
    const fields = line.split("\t");
    onRow?.(fields);
    return compactEventFields(fields, line);
  };
  let rest: Buffer = Buffer.alloc(0);
  for await (const chunk of data) {
    const buf = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
    const end = buf.lastIndexOf(0x0a);
    if (end < 0) {
      rest = buf;
      continue;
    }
    // A newline byte never occurs inside a UTF-8 sequence: whole rows decode on their own.
    const rows = buf.toString("utf8", 0, end).split("\n");
    rest = buf.subarray(end + 1);
    yield Buffer.from(`${rows.map(compact).join("\n")}\n`, "utf8");
  }
  if (rest.length > 0) yield Buffer.from(compact(rest.toString("utf8")), "utf8");
}
