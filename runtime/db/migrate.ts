/**
 * Versioned migrations (DESIGN.md §2 "Storage"): applied in order inside one transaction that
 * holds an advisory lock, so two processes starting at once apply each migration exactly once.
 */
import * as core from "./migrations/0001-core.js";
import * as eventIndexes from "./migrations/0002-event-indexes.js";
import * as subgraphs from "./migrations/0003-subgraphs.js";
import * as webhooks from "./migrations/0004-webhooks.js";
import * as subgraphProgress from "./migrations/0005-subgraph-progress.js";
import * as minerRewards from "./migrations/0006-miner-rewards.js";
import * as reorgForkPoint from "./migrations/0007-reorg-fork-point.js";
import * as finality from "./migrations/0008-finality.js";
import * as subgraphRevertCoverage from "./migrations/0009-subgraph-revert-coverage.js";
import * as archive from "./migrations/0010-archive.js";
import * as archiveRestoreId from "./migrations/0011-archive-restore-id.js";
import * as webhookBatches from "./migrations/0012-webhook-batches.js";
import * as webhookHeld from "./migrations/0013-webhook-held.js";
import * as extended from "./migrations/0014-extended.js";
import * as burnchainOpDetails from "./migrations/0015-burnchain-op-details.js";
import * as compactEvents from "./migrations/0016-compact-events.js";
import * as webhookPendingBound from "./migrations/0019-webhook-pending-bound.js";
import * as webhookAttemptsLog from "./migrations/0021-webhook-attempts-log.js";
import type { Db } from "./types.js";

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const CORE_MIGRATIONS: Migration[] = [
  { version: 1, name: core.name, sql: core.sql },
  { version: 2, name: eventIndexes.name, sql: eventIndexes.sql },
  { version: 3, name: subgraphs.name, sql: subgraphs.sql },
  { version: 4, name: webhooks.name, sql: webhooks.sql },
  { version: 5, name: subgraphProgress.name, sql: subgraphProgress.sql },
  { version: 6, name: minerRewards.name, sql: minerRewards.sql },
  { version: 7, name: reorgForkPoint.name, sql: reorgForkPoint.sql },
  { version: 8, name: finality.name, sql: finality.sql },
  { version: 9, name: subgraphRevertCoverage.name, sql: subgraphRevertCoverage.sql },
  { version: 10, name: archive.name, sql: archive.sql },
  { version: 11, name: archiveRestoreId.name, sql: archiveRestoreId.sql },
  { version: 12, name: webhookBatches.name, sql: webhookBatches.sql },
  { version: 13, name: webhookHeld.name, sql: webhookHeld.sql },
  { version: 14, name: extended.name, sql: extended.sql },
  { version: 15, name: burnchainOpDetails.name, sql: burnchainOpDetails.sql },
  { version: 16, name: compactEvents.name, sql: compactEvents.sql },
  { version: 19, name: webhookPendingBound.name, sql: webhookPendingBound.sql },
  { version: 21, name: webhookAttemptsLog.name, sql: webhookAttemptsLog.sql },
];

/** Where a set of migrations records what it applied, and the lock that serialises it. */
export interface MigrationLedger {
  /** Schema holding the `migrations` table. */
  schema: string;
  /** Advisory lock key (arbitrary, one per set): two processes starting at once apply each migration once. */
  lockKey: number;
}

const CORE_LEDGER: MigrationLedger = { schema: "control", lockKey: 7_301_955_001 };

/** The ledger table's columns (`{table}` is the schema-qualified name). */
export const LEDGER_TABLE_DDL =
  "CREATE TABLE IF NOT EXISTS {table} (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())";

/** Applies pending migrations; returns the versions applied by this call. */
export async function migrate(
  db: Db,
  migrations: Migration[] = CORE_MIGRATIONS,
  ledger: MigrationLedger = CORE_LEDGER,
): Promise<number[]> {
  const table = `${ledger.schema}.migrations`;
  return db.transaction(async (q) => {
    await q.query("SELECT pg_advisory_xact_lock($1)", [ledger.lockKey]);
    await q.query(`CREATE SCHEMA IF NOT EXISTS ${ledger.schema}`);
    await q.query(LEDGER_TABLE_DDL.replace("{table}", table));
    const { rows } = await q.query<{ version: number }>(`SELECT version FROM ${table}`);
    const done = new Set(rows.map((r) => r.version));
    const applied: number[] = [];
    for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
      if (done.has(m.version)) continue;
      await q.exec(m.sql);
      await q.query(`INSERT INTO ${table} (version, name) VALUES ($1, $2)`, [m.version, m.name]);
      applied.push(m.version);
    }
    return applied;
  });
}
