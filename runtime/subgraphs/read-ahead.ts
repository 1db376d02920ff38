/**
 * The rows a transaction's blocks will look up, planned before the first of them is applied, so
 * that each table is read once for the whole transaction instead of once per block: upserts and
 * increments by their key, updates by the rows their key matches (transaction-rows.ts
 * `readAhead`, `readAheadMatches`). Pure: the plan is a guess that costs nothing when wrong — a
 * block that turns out to be a side block, or a trait verdict that a deploy later in the batch
 * changes, only makes the read fetch a row nobody asks for or miss one that is then read per block.
 */
import type { DecodedBlock } from "../chain/types.js";
import type { ActiveSubgraph } from "./block-apply.js";
import { buildHandlerContexts } from "./context.js";
import { planOps } from "./dispatch.js";
import type { TraitCheck } from "./match-source.js";
import { buildRuns, type SeqOp } from "./op-runs.js";
import type { TaggedTarget } from "./table-sql.js";
import type { IncrementOp, UpdateOp, UpsertOp } from "./types.js";

/**
 * The key values one table's upserts and increments look up under one key (`keys`), or its
 * updates match with one key shape (`matches`: `nulls` marks the columns matched with IS NULL).
 */
export type PlannedLookup =
  | { kind: "keys"; target: TaggedTarget; key: string[]; values: Record<string, unknown>[] }
  | { kind: "matches"; target: TaggedTarget; key: string[]; nulls: boolean[]; values: Record<string, unknown>[] };

export function plannedLookups(
  subgraphs: readonly ActiveSubgraph[],
  blocks: readonly DecodedBlock[],
  config: Record<string, string>,
  check: TraitCheck,
): PlannedLookup[] {
  const contexts = blocks.flatMap((b) => buildHandlerContexts(b, config));
  const lookups = new Map<string, PlannedLookup>();
  for (const { module, index } of subgraphs) {
    let ops: SeqOp[];
    try {
      ops = planOps(module, index, contexts, check).map((op, seq) => ({ ...op, seq }));
    } catch {
      continue; // the block's own application reports the handler's failure
    }
    const byTable = new Map<string, SeqOp[]>();
    for (const op of ops) {
      const list = byTable.get(op.op.table);
      if (list) list.push(op);
      else byTable.set(op.op.table, [op]);
    }
    for (const [table, tableOps] of byTable) {
      const target = {
        subgraph: module.name,
        schema: module.schema,
        meta: module.tables[table],
        schemaHash: module.schemaHash,
      };
      for (const run of buildRuns(target.meta, tableOps)) {
        let lookup: PlannedLookup | undefined;
        if (run.kind === "upsert" || run.kind === "increment") {
          const id = `${module.name}|${table}|keys|${run.key.join(",")}`;
          lookup = lookups.get(id) ?? { kind: "keys", target, key: run.key, values: [] };
          lookups.set(id, lookup);
        } else if (run.kind === "update") {
          const id = `${module.name}|${table}|matches|${run.keyColumns.join(",")}|${run.nulls.join(",")}`;
          lookup = lookups.get(id) ?? { kind: "matches", target, key: run.keyColumns, nulls: run.nulls, values: [] };
          lookups.set(id, lookup);
        } else {
          continue;
        }
        for (const planned of run.ops) {
          const op = planned.op as UpsertOp | IncrementOp | UpdateOp;
          lookup.values.push(op.kind === "upsert" ? op.values : op.key);
        }
      }
    }
  }
  return [...lookups.values()];
}
