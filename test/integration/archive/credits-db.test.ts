/**
 * The ledger's own database as the archive server opens it: embedded in ARCHIVE_CREDITS_DIR (locked
 * for one process, as DATA_DIR is), or PostgreSQL at ARCHIVE_CREDITS_DATABASE_URL; migrations apply once and a
 * reopened ledger keeps its balances.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openCreditsDb, parseCreditsConfig } from "../../../runtime/archive/credits/config.js";
import { migrateCredits } from "../../../runtime/archive/credits/migrations.js";
import { createPgDatabase, TEST_DB_KIND } from "../../support/db.js";
import { makeService } from "../../support/credits.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-credits-db-"));
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function env(): Promise<NodeJS.ProcessEnv> {
  if (TEST_DB_KIND !== "postgres") return { ARCHIVE_CREDITS_DIR: path.join(dir, "ledger") };
  const created = await createPgDatabase();
  cleanups.push(created.drop);
  return { ARCHIVE_CREDITS_DATABASE_URL: created.url };
}

describe(`the credit ledger's own database (${TEST_DB_KIND})`, () => {
  it("is created and migrated once, and keeps balances across reopening", async () => {
    const e = await env();
    const config = parseCreditsConfig(e, dir);
    const first = await openCreditsDb(config);
    const now = () => new Date("2026-02-02T00:00:00Z");
    const grant = await makeService(first, null, now).grant({ keyId: null, amountCents: 4200 });
    if (TEST_DB_KIND === "pglite")
      expect(fs.readFileSync(path.join(dir, "ledger", "sluice.lock"), "utf8")).toBe(String(process.pid));
    await first.close();

    const again = await openCreditsDb(config);
    try {
      expect(await migrateCredits(again)).toEqual([]);
      const view = await makeService(again, null, now).balance(grant.credit_key as string);
      expect(view.balance_cents).toBe(4200);
    } finally {
      await again.close();
    }
    if (TEST_DB_KIND === "pglite") {
      expect(fs.existsSync(path.join(dir, "ledger", "pgdata"))).toBe(true);
      expect(fs.existsSync(path.join(dir, "ledger", "sluice.lock"))).toBe(false); // released on close
    }
  });
});
