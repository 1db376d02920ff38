/**
 * Print-payload schema inference for `GET /v1/index/contracts/:contract_id/print-schema`
 * (SPEC.md "Index and Streams routes"; DESIGN.md §3: a spec author reads the shape of a
 * contract's prints here). Pure: raw print values in, an incremental summary, JSON out.
 *
 * Prints are grouped by *topic*: the string `topic` field of a printed tuple (the convention of
 * sBTC, BNS-V2 and most contracts), else the node's event topic (`print`). Per topic:
 * - `count`, `first_block_height`, `last_block_height`;
 * - `type`: the Clarity type of the printed values, merged over every print
 *   (runtime/chain/decode/clarity-json.ts: parts one value cannot tell — a `none`'s inner type,
 *   the other branch of a response, an empty list's element — are filled in by other values;
 *   tuples of one topic that differ in keys merge into the union of their keys);
 * - `variants` (only when present): values whose types cannot merge (e.g. a field that is a uint
 *   in one print and a string in another) are kept apart as `[{ type, count }]`, most common
 *   first; `type` is then the most common one;
 * - `fields` (tuple values): per key, `count` (prints with the key), `presence_rate`
 *   (count ÷ tuple prints of the topic), `type`, `variants` as above, and for optional fields
 *   `none_rate` (share of those values that were `none`).
 * `undecodable_count` counts prints whose raw value did not decode; they are left out of topics.
 * Keys are sorted, so the same history always renders the same bytes (and the same ETag).
 */
import { ClarityType, type ClarityValue } from "@stacks/transactions";
import {
  type ClarityTypeSignature,
  clarityTypeSignature,
  decodeClarityValue,
  mergeClarityTypeSignatures,
} from "../../chain/decode/clarity-json.js";

interface Variant {
  type: ClarityTypeSignature | null;
  count: number;
}

interface FieldStats {
  count: number;
  none: number;
  variants: Variant[];
}

interface TopicStats {
  count: number;
  firstHeight: number;
  lastHeight: number;
  /** Prints of the topic whose value is a tuple (the denominator of presence_rate). */
  tuples: number;
  variants: Variant[];
  fields: Map<string, FieldStats>;
}

/** The running summary of one contract's prints. Mutable; fed in cursor order. */
export interface PrintSchemaState {
  contractId: string;
  printCount: number;
  undecodable: number;
  firstHeight: number | null;
  lastHeight: number | null;
  topics: Map<string, TopicStats>;
}

export interface PrintInput {
  blockHeight: number;
  /** The node's topic of the print event (normally `print`). */
  nodeTopic: string | null;
  /** 0x-hex consensus-serialized Clarity value. */
  rawValue: string | null;
}

export interface FieldSchemaJson {
  count: number;
  presence_rate: number;
  type: ClarityTypeSignature | null;
  none_rate?: number;
  variants?: Variant[];
}

export interface TopicSchemaJson {
  count: number;
  first_block_height: number;
  last_block_height: number;
  type: ClarityTypeSignature | null;
  variants?: Variant[];
  fields?: Record<string, FieldSchemaJson>;
}

export interface PrintSchemaJson {
  contract_id: string;
  print_count: number;
  undecodable_count: number;
  first_block_height: number | null;
  last_block_height: number | null;
  topics: Record<string, TopicSchemaJson>;
}

export function createPrintSchemaState(contractId: string): PrintSchemaState {
  return { contractId, printCount: 0, undecodable: 0, firstHeight: null, lastHeight: null, topics: new Map() };
}

/** Adds one print. */
export function addPrint(state: PrintSchemaState, print: PrintInput): void {
  state.printCount++;
  state.firstHeight = state.firstHeight === null ? print.blockHeight : Math.min(state.firstHeight, print.blockHeight);
  state.lastHeight = state.lastHeight === null ? print.blockHeight : Math.max(state.lastHeight, print.blockHeight);
  let cv: ClarityValue;
  try {
    if (print.rawValue === null) throw new Error("no raw value");
    cv = decodeClarityValue(print.rawValue);
  } catch {
    state.undecodable++;
    return;
  }
  const topicName = tupleTopic(cv) ?? print.nodeTopic ?? "print";
  let topic = state.topics.get(topicName);
  if (!topic) {
    topic = {
      count: 0,
      firstHeight: print.blockHeight,
      lastHeight: print.blockHeight,
      tuples: 0,
      variants: [],
      fields: new Map(),
    };
    state.topics.set(topicName, topic);
  }
  topic.count++;
  topic.firstHeight = Math.min(topic.firstHeight, print.blockHeight);
  topic.lastHeight = Math.max(topic.lastHeight, print.blockHeight);
  addVariant(topic.variants, clarityTypeSignature(cv));
  if (cv.type !== ClarityType.Tuple) return;
  topic.tuples++;
  for (const key of Object.keys(cv.value)) {
    const value = cv.value[key];
    let field = topic.fields.get(key);
    if (!field) {
      field = { count: 0, none: 0, variants: [] };
      topic.fields.set(key, field);
    }
    field.count++;
    if (value.type === ClarityType.OptionalNone) field.none++;
    addVariant(field.variants, clarityTypeSignature(value));
  }
}

/** The route's response body. */
export function renderPrintSchema(state: PrintSchemaState): PrintSchemaJson {
  const topics: [string, TopicSchemaJson][] = [];
  for (const name of sortedKeys(state.topics)) {
    const t = state.topics.get(name) as TopicStats;
    const variants = ranked(t.variants);
    const out: TopicSchemaJson = {
      count: t.count,
      first_block_height: t.firstHeight,
      last_block_height: t.lastHeight,
      type: variants[0]?.type ?? null,
    };
    if (variants.length > 1) out.variants = variants;
    if (t.tuples > 0) {
      const fields: [string, FieldSchemaJson][] = [];
      for (const key of sortedKeys(t.fields)) {
        const f = t.fields.get(key) as FieldStats;
        const fv = ranked(f.variants);
        const field: FieldSchemaJson = {
          count: f.count,
          presence_rate: rate(f.count, t.tuples),
          type: fv[0]?.type ?? null,
        };
        if (fv[0]?.type?.type === "optional") field.none_rate = rate(f.none, f.count);
        if (fv.length > 1) field.variants = fv;
        fields.push([key, field]);
      }
      out.fields = Object.fromEntries(fields);
    }
    topics.push([name, out]);
  }
  return {
    contract_id: state.contractId,
    print_count: state.printCount,
    undecodable_count: state.undecodable,
    first_block_height: state.firstHeight,
    last_block_height: state.lastHeight,
    topics: Object.fromEntries(topics),
  };
}

/** The string `topic` field of a tuple, if it has one. */
function tupleTopic(cv: ClarityValue): string | undefined {
  if (cv.type !== ClarityType.Tuple || !Object.hasOwn(cv.value, "topic")) return undefined;
  const topic = cv.value.topic;
  return topic.type === ClarityType.StringASCII || topic.type === ClarityType.StringUTF8 ? topic.value : undefined;
}

/** Merges `sig` into the first variant it is compatible with, or opens a new one. */
function addVariant(variants: Variant[], sig: ClarityTypeSignature): void {
  for (const v of variants) {
    if (compatible(v.type, sig)) {
      v.type = mergeClarityTypeSignatures(v.type, sig);
      v.count++;
      return;
    }
  }
  variants.push({ type: sig, count: 1 });
}

/**
 * Whether two signatures can describe one Clarity type: unknown parts (null) match anything,
 * tuples match when their shared keys do (differing key sets merge into a union).
 */
export function compatible(a: ClarityTypeSignature | null, b: ClarityTypeSignature | null): boolean {
  if (a === null || b === null || a === b) return true;
  if (a.type !== b.type) return false;
  switch (a.type) {
    case "optional":
      return compatible(a.inner, (b as typeof a).inner);
    case "response":
      return compatible(a.ok, (b as typeof a).ok) && compatible(a.err, (b as typeof a).err);
    case "list":
      return compatible(a.element, (b as typeof a).element);
    case "tuple": {
      const other = (b as typeof a).fields;
      for (const key of Object.keys(a.fields)) {
        if (Object.hasOwn(other, key) && !compatible(a.fields[key], other[key])) return false;
      }
      return true;
    }
    default:
      return true;
  }
}

/** Most common first; ties keep first-seen order (Array.prototype.sort is stable). */
function ranked(variants: Variant[]): Variant[] {
  return [...variants].sort((x, y) => y.count - x.count).map((v) => ({ type: v.type, count: v.count }));
}

function rate(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part / whole) * 1e6) / 1e6;
}

function sortedKeys(map: Map<string, unknown>): string[] {
  return [...map.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
