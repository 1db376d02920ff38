/**
 * Query and path parameters of the Extended view, checked as Hiro's API checks them: `limit` and
 * `offset` integers within the route's bounds, principals, transaction ids and block hashes in
 * their text forms. Pure; every failure is a 400 INVALID_PARAMETER naming the parameter.
 */
import { invalidParam } from "./errors.js";

type Query = Record<string, unknown>;

/** Pagination of a list route: Hiro's default and maximum `limit` differ per route. */
export interface Page {
  limit: number;
  offset: number;
}

export function parsePage(query: Query, defaultLimit: number, maxLimit: number): Page {
  const limit = optionalInt(query, "limit") ?? defaultLimit;
  const offset = optionalInt(query, "offset") ?? 0;
  if (limit < 0 || limit > maxLimit) throw invalidParam(`limit must be between 0 and ${maxLimit}`, { limit });
  if (offset < 0) throw invalidParam("offset must be 0 or more", { offset });
  return { limit, offset };
}

function optionalInt(query: Query, name: string): number | undefined {
  const raw = query[name];
  if (raw === undefined || raw === "") return undefined;
  if (typeof raw !== "string" || !/^-?\d{1,15}$/.test(raw))
    throw invalidParam(`${name} must be an integer`, { [name]: raw });
  return Number(raw);
}

/** One optional string parameter (a repeated one is refused). */
export function optionalString(query: Query, name: string): string | undefined {
  const raw = query[name];
  if (raw === undefined) return undefined;
  if (typeof raw !== "string") throw invalidParam(`${name} must be given once`, { [name]: raw });
  return raw;
}

const C32 = "[0123456789ABCDEFGHJKMNPQRSTVWXYZ]";
const STANDARD = new RegExp(`^S${C32}{28,41}$`);
const CONTRACT_NAME = /^[a-zA-Z]([a-zA-Z0-9]|[-_])*$/;

/** A standard principal (`SP…`) or a contract principal (`SP….name`). */
export function isPrincipal(text: string): boolean {
  const [address, name, ...rest] = text.split(".");
  if (rest.length > 0 || !STANDARD.test(address)) return false;
  return name === undefined || (name.length <= 128 && CONTRACT_NAME.test(name));
}

export function parsePrincipal(text: string, name = "principal"): string {
  if (!isPrincipal(text)) throw invalidParam(`invalid ${name} "${text}"`, { [name]: text });
  return text;
}

export function parseContractId(text: string): string {
  if (!text.includes(".") || !isPrincipal(text))
    throw invalidParam(`invalid contract_id "${text}"`, { contract_id: text });
  return text;
}

/** A 32-byte hash as 0x-hex; Hiro also takes it without the prefix. Returns the 0x form, lowercase. */
export function parseHash(text: string, name: string): string {
  const m = /^(0x)?([0-9a-fA-F]{64})$/.exec(text);
  if (!m) throw invalidParam(`invalid ${name} "${text}": expected 32 bytes of hex`, { [name]: text });
  return `0x${m[2].toLowerCase()}`;
}

/** `:height_or_hash`: "latest", a height, or a block hash / index block hash. */
export type BlockId = { kind: "latest" } | { kind: "height"; height: number } | { kind: "hash"; hash: string };

export function parseBlockId(text: string): BlockId {
  if (text === "latest") return { kind: "latest" };
  if (/^\d{1,10}$/.test(text) && Number(text) <= 2_147_483_647) return { kind: "height", height: Number(text) };
  return { kind: "hash", hash: parseHash(text, "height_or_hash") };
}

export function parseHeight(text: string): number {
  if (!/^\d{1,10}$/.test(text) || Number(text) > 2_147_483_647)
    throw invalidParam(`invalid height "${text}"`, { height: text });
  return Number(text);
}
