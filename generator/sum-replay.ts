/**
 * Whether a subgraph's handlers can be replayed as sums (runtime/subgraphs/sum-replay.ts), and
 * the operations as data when they can. Pure. They can when every source listens to stored chain
 * events, fees or miner rewards without a filter, and every operation is an unconditional
 * increment whose key values are text literals or event fields of text columns and whose deltas
 * are number literals or (negated) event fields of signed numeric columns. A `uint` column is left
 * out: replaying one operation at a time can refuse a balance that dips below zero midway, a sum
 * cannot see that.
 */
import type { SumField, SumReplayOp, SumTerm } from "../runtime/subgraphs/types.js";
import type { Expr } from "./expr/nodes.js";
import type { SubgraphModel, TableModel } from "./model.js";

const FIELDS: ReadonlySet<string> = new Set<SumField>([
  "contract_id",
  "asset_identifier",
  "sender",
  "recipient",
  "amount",
]);
const TX_LEVEL: ReadonlySet<string> = new Set(["contract_call", "contract_deploy"]);
const KEY_TYPES: ReadonlySet<string> = new Set(["text", "principal"]);
const DELTA_TYPES: ReadonlySet<string> = new Set(["int", "bigint"]);

/** The summed form of `model`'s handlers, or undefined when some part cannot be summed. */
export function sumReplayOf(model: SubgraphModel): SumReplayOp[] | undefined {
  const sources = new Map(model.sources.map((s) => [s.name, s]));
  const tables = new Map(model.tables.map((t) => [t.name, t]));
  if (model.sources.some((s) => TX_LEVEL.has(s.type) || Object.keys(s.filter).length > 0)) return undefined;
  const out: SumReplayOp[] = [];
  for (const handler of model.handlers) {
    if (!sources.has(handler.source)) return undefined;
    for (const op of handler.operations) {
      if (op.kind !== "increment" || op.when !== undefined || op.values.length > 0) return undefined;
      const table = tables.get(op.table);
      if (table === undefined) return undefined;
      const key: Record<string, SumTerm> = {};
      for (const a of op.key) {
        const term = keyTerm(a.expr);
        if (term === undefined || !KEY_TYPES.has(columnType(table, a.column) ?? "")) return undefined;
        key[a.column] = term;
      }
      const deltas: Record<string, SumTerm> = {};
      for (const a of op.deltas) {
        const term = deltaTerm(a.expr);
        if (term === undefined || !DELTA_TYPES.has(columnType(table, a.column) ?? "")) return undefined;
        deltas[a.column] = term;
      }
      out.push({ source: handler.source, table: op.table, key, deltas });
    }
  }
  return out.length > 0 ? out : undefined;
}

function columnType(table: TableModel, name: string): string | undefined {
  return table.columns.find((c) => c.name === name)?.type;
}

function field(expr: Expr): SumField | undefined {
  if (expr.kind !== "path" || expr.root !== "event" || expr.segments.length !== 1) return undefined;
  return FIELDS.has(expr.segments[0]) ? (expr.segments[0] as SumField) : undefined;
}

function keyTerm(expr: Expr): SumTerm | undefined {
  if (expr.kind === "literal") return expr.type === "text" ? { literal: String(expr.value) } : undefined;
  const f = field(expr);
  return f === undefined ? undefined : { field: f };
}

function deltaTerm(expr: Expr): SumTerm | undefined {
  if (expr.kind === "literal") return expr.type === "number" ? { literal: String(expr.value) } : undefined;
  if (expr.kind === "neg") {
    const f = field(expr.operand);
    return f === undefined ? undefined : { field: f, negate: true };
  }
  const f = field(expr);
  return f === undefined ? undefined : { field: f };
}
