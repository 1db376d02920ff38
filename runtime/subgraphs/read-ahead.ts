/**
 * The rows a transaction's blocks will look up, planned before the first of them is applied, so
 * that each table is read once for the whole transaction instead of once per block: upserts and
 * increments by their key, updates by the rows their key matches (transaction-rows.ts
 * `readAhead`, `readAheadMatches`). Pure: the plan is a guess that costs nothing when wrong — a
 * block that turns out to be a side block, or a trait verdict that a deploy later in the batch
 * changes, only makes the read fetch a row nobody asks for or miss one that is then read per block.
 * The same plan says how many rows the blocks' inserts make (`plannedInserts`), so that their
 * `_id`s are reserved with the read instead of by a round trip during the blocks.
 */
import type { PlannedOp } from "./dispatch.js";
import { isNull, ordered } from "./op-runs.js";
import type { TaggedTarget } from "./table-sql.js";
import type { SubgraphModule } from "./types.js";

/**
 * The key values one table's upserts and increments look up under one key (`keys`), or its
 * updates match with one key shape (`matches`: `nulls` marks the columns matched with IS NULL).
 */
export type PlannedLookup =
  | { kind: "keys"; target: TaggedTarget; key: string[]; values: Record<string, unknown>[] }
  | { kind: "matches"; target: TaggedTarget; key: string[]; nulls: boolean[]; values: Record<string, unknown>[] };

export function plannedLookups(
  plans: readonly { module: SubgraphModule; ops: readonly PlannedOp[] }[],
): PlannedLookup[] {
  const lookups = new Map<string, PlannedLookup>();
  const add = (id: string, make: () => PlannedLookup, values: Record<string, unknown>) => {
    let lookup = lookups.get(id);
    if (lookup === undefined) {
      lookup = make();
      lookups.set(id, lookup);
    }
    lookup.values.push(values);
  };
  for (const { module, ops } of plans) {
    const target = (table: string) => tableTarget(module, table);
    // Key columns ordered as the runs order them (op-runs.ts), so the reads land under the same key.
    for (const { op } of ops) {
      if (op.kind === "upsert") {
        add(
          `${module.name}|${op.table}|keys|${op.key.join(",")}`,
          () => ({ kind: "keys", target: target(op.table), key: [...op.key], values: [] }),
          op.values,
        );
      } else if (op.kind === "increment") {
        const meta = module.tables[op.table];
        const key = ordered(meta, Object.keys(op.key));
        add(
          `${module.name}|${op.table}|keys|${key.join(",")}`,
          () => ({ kind: "keys", target: target(op.table), key, values: [] }),
          op.key,
        );
      } else if (op.kind === "update") {
        const meta = module.tables[op.table];
        const key = ordered(meta, Object.keys(op.key));
        const nulls = key.map((c) => isNull(op.key[c]));
        add(
          `${module.name}|${op.table}|matches|${key.join(",")}|${nulls.join(",")}`,
          () => ({ kind: "matches", target: target(op.table), key, nulls, values: [] }),
          op.key,
        );
      }
    }
  }
  return [...lookups.values()];
}

/** How many rows each table's planned inserts make (keyed by subgraph and table). */
export function plannedInserts(
  plans: readonly { module: SubgraphModule; ops: readonly PlannedOp[] }[],
): { target: TaggedTarget; count: number }[] {
  const counts = new Map<string, { target: TaggedTarget; count: number }>();
  for (const { module, ops } of plans) {
    for (const { op } of ops) {
      if (op.kind !== "insert") continue;
      const id = `${module.name}|${op.table}`;
      let entry = counts.get(id);
      if (entry === undefined) {
        entry = {
          target: tableTarget(module, op.table),
          count: 0,
        };
        counts.set(id, entry);
      }
      entry.count++;
    }
  }
  return [...counts.values()];
}

function tableTarget(module: SubgraphModule, table: string): TaggedTarget {
  return { subgraph: module.name, schema: module.schema, meta: module.tables[table], schemaHash: module.schemaHash };
}
