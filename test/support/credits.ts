/**
 * Harness for archive credit tests: the ledger on the test database (PGlite, or PostgreSQL when
 * SLUICE_TEST_DB=postgres), a credits service with a settable clock, and the credits router on a
 * real HTTP server on an ephemeral port.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { migrateCredits } from "../../runtime/archive/credits/migrations.js";
import type { PaymentProvider } from "../../runtime/archive/credits/provider.js";
import { createCreditsApp } from "../../runtime/archive/credits/routes.js";
import { type CreditsService, createCreditsService } from "../../runtime/archive/credits/service.js";
import type { Db } from "../../runtime/db/types.js";
import { createLogger } from "../../runtime/internal/logger.js";
import { createTestDb, type TestDb } from "./db.js";

export interface CreditsDb {
  db: Db;
  /** Drops the ledger's schema and migrates it again. */
  reset(): Promise<void>;
  drop(): Promise<void>;
  testDb: TestDb;
}

export async function createCreditsDb(): Promise<CreditsDb> {
  const testDb = await createTestDb();
  const reset = async () => {
    await testDb.db.exec("DROP SCHEMA IF EXISTS credits CASCADE");
    await migrateCredits(testDb.db);
  };
  await reset();
  return { db: testDb.db, reset, drop: () => testDb.drop(), testDb };
}

/** A clock tests move by hand. */
export function settableClock(start: string) {
  let t = new Date(start);
  return {
    now: () => new Date(t),
    set(iso: string) {
      t = new Date(iso);
    },
  };
}

export const quietLogger = createLogger({ level: "silent" });

export function makeService(db: Db, provider: PaymentProvider | null, now: () => Date): CreditsService {
  return createCreditsService({ db, provider, logger: quietLogger, now });
}

export interface CreditsServer {
  url: string;
  service: CreditsService;
  close(): Promise<void>;
}

export async function startCreditsServer(o: {
  db: Db;
  provider: PaymentProvider | null;
  now: () => Date;
  operatorToken?: string | null;
}): Promise<CreditsServer> {
  const service = makeService(o.db, o.provider, o.now);
  const app = createCreditsApp({ service, operatorToken: o.operatorToken ?? null, logger: quietLogger });
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    service,
    close: async () => {
      await service.settled();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The ledger's own rows for a key, summed independently of the service. */
export async function sumOfEntries(db: Db, keyId: string): Promise<number> {
  const { rows } = await db.query<{ amount_cents: string }>(
    "SELECT amount_cents FROM credits.entries WHERE key_id = $1",
    [keyId],
  );
  return rows.reduce((s, r) => s + Number(r.amount_cents), 0);
}
