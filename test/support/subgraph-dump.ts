/**
 * Test helpers for subgraph tables: dump every table of every loaded subgraph as sorted lines
 * (declared columns + `_block_height` + `_tx_id`; `_id` and `_created_at` depend on history and
 * time, not on the chain), and wait for background backfills.
 */
import type { Db, Queryable } from "../../runtime/db/types.js";
import type { SubgraphEngine } from "../../runtime/subgraphs/index.js";

export type TableDump = Record<string, string[]>;

export async function dumpSubgraphTables(db: Db, engine: SubgraphEngine): Promise<TableDump> {
  const out: TableDump = {};
  for (const info of engine.list()) {
    for (const [table, meta] of Object.entries(info.module.tables)) {
      const columns = Object.keys(meta.columns).filter((c) => c !== "_id" && c !== "_created_at");
      const { rows } = await db.query<Record<string, unknown>>(
        `SELECT ${columns.map((c) => `"${c}"::text AS "${c}"`).join(", ")} FROM "${info.module.schema}"."${table}"`,
      );
      out[`${info.name}.${table}`] = rows.map((r) => JSON.stringify(columns.map((c) => r[c]))).sort();
    }
  }
  return out;
}

/** Reindexes every subgraph and waits until all are ready again. */
export async function reindexAll(engine: SubgraphEngine): Promise<void> {
  for (const info of engine.list()) await engine.reindex(info.name);
  await engine.idle();
  for (const info of engine.list()) {
    const p = await engine.progress(info.name);
    if (p?.status !== "ready") throw new Error(`${info.name} is ${p?.status} after reindex: ${p?.error}`);
  }
}

/** sg_asset_holdings.holdings as `kind|asset|holder` → balance (the shape of subgraph-expect's expectedHoldings). */
export async function readHoldings(db: Queryable): Promise<Map<string, bigint>> {
  const { rows } = await db.query<{ kind: string; asset_identifier: string; holder: string; amount: string }>(
    "SELECT kind, asset_identifier, holder, amount FROM sg_asset_holdings.holdings",
  );
  return new Map(rows.map((r) => [`${r.kind}|${r.asset_identifier}|${r.holder}`, BigInt(r.amount)]));
}

/** sg_contract_deployments.contracts as sorted [contract_id, name, deployer, deploy_block, deploy_tx_id] (expectedContracts' shape). */
export async function readContracts(db: Queryable): Promise<string[][]> {
  const { rows } = await db.query<Record<string, string>>(
    "SELECT contract_id, name, deployer, deploy_block::text AS deploy_block, deploy_tx_id FROM sg_contract_deployments.contracts",
  );
  return rows.map((r) => [r.contract_id, r.name, r.deployer, r.deploy_block, r.deploy_tx_id]).sort();
}
